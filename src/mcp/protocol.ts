// MCP versions and the per-request era check. Handlers never see eras.
import { INVALID_PARAMS, RpcError, UNSUPPORTED_PROTOCOL_VERSION } from '../jsonrpc/errors';
import { isPlainObject, type Params } from '../jsonrpc/message';

/** Versions answered through `initialize` (the legacy, handshake era). */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export const LATEST_LEGACY_VERSION = '2025-11-25';
/** Versions answered statelessly, with `_meta` on every request. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export type Era = 'legacy' | 'modern';

/** The longest requested version echoed back in a -32022 error. */
export const MAX_ECHOED_VERSION_CHARS = 64;

/** A value named by its type, never by its content: safe whatever its size or depth. */
function describeValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value === 'object' ? 'JSON object' : typeof value}`;
}

function metaOf(params: Params): Record<string, unknown> | undefined {
  if (!isPlainObject(params)) return undefined;
  const meta = params._meta;
  return isPlainObject(meta) ? meta : undefined;
}

/**
 * A request is modern when its `_meta` names a protocol version. The mere
 * presence of `_meta` proves nothing: legacy clients send `_meta.progressToken`.
 */
export function eraOf(params: Params): Era {
  const meta = metaOf(params);
  return meta && Object.prototype.hasOwnProperty.call(meta, META_PROTOCOL_VERSION) ? 'modern' : 'legacy';
}

/** Throws the wire error a modern request earns when its `_meta` is unusable. */
export function checkModernMeta(params: Params): void {
  const meta = metaOf(params);
  const requested = meta?.[META_PROTOCOL_VERSION];
  if (typeof requested !== 'string' || !(MODERN_VERSIONS as readonly string[]).includes(requested)) {
    // Only a short string is echoed: anything else (a value nested thousands
    // of levels deep, a megabyte of text) is described by its type instead.
    const echo = typeof requested === 'string' && requested.length <= MAX_ECHOED_VERSION_CHARS ? requested : null;
    throw new RpcError(
      UNSUPPORTED_PROTOCOL_VERSION,
      `Unsupported protocol version: ${echo !== null ? JSON.stringify(echo) : describeValue(requested)}; this server speaks ${MODERN_VERSIONS.join(', ')}`,
      { supported: [...MODERN_VERSIONS], requested: echo },
    );
  }
  if (!isPlainObject(meta?.[META_CLIENT_CAPABILITIES])) {
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid _meta: "${META_CLIENT_CAPABILITIES}" must be an object on every ${requested} request`,
    );
  }
}

/** Echo a legacy version we speak; answer anything else with our latest legacy one. */
export function negotiateLegacyVersion(requested: unknown): string {
  return typeof requested === 'string' && (LEGACY_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : LATEST_LEGACY_VERSION;
}

// JSON-RPC wire errors. The only place that names wire codes.

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** MCP 2026-07-28: the request named a protocol version this server does not speak. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** A wire error a method handler raises on purpose; anything else thrown is a fault (-32603). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** The longest name (a method, a tool) an error message repeats in full. */
export const MAX_ECHOED_NAME_CHARS = 64;

/** A client-given name as an error message may repeat it: cut short when long, so a reply stays small. */
export function clipName(name: string): string {
  return name.length <= MAX_ECHOED_NAME_CHARS ? name : `${name.slice(0, MAX_ECHOED_NAME_CHARS)}... (${name.length} characters)`;
}

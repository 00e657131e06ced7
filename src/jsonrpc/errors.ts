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

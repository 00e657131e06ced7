// One line of text to a typed JSON-RPC message, or the error to answer it with.
import { INVALID_REQUEST, PARSE_ERROR } from './errors';

export type RequestId = string | number;
export type Params = Record<string, unknown> | unknown[] | undefined;

export type Incoming =
  | { kind: 'request'; id: RequestId; method: string; params: Params }
  | { kind: 'notification'; method: string; params: Params }
  | { kind: 'response' }
  | { kind: 'invalid'; id?: RequestId; code: number; message: string };

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

// JSON.parse rounds an integer beyond 2^53 - 1, so the reply would carry an id
// the client never sent (and two such ids could collide in a cancel). Such an
// id is refused openly instead of being answered under another number.
function isExactId(id: RequestId): boolean {
  return typeof id === 'string' || !Number.isInteger(id) || Number.isSafeInteger(id);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses and classifies one frame. Never throws. */
export function parseIncoming(text: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid', code: PARSE_ERROR, message: 'Parse error: the line is not valid JSON' };
  }
  if (Array.isArray(value)) {
    return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: batch arrays are not supported; send one message per line' };
  }
  if (!isPlainObject(value)) {
    return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: a message must be a JSON object' };
  }
  const hasId = Object.prototype.hasOwnProperty.call(value, 'id');
  const id = value.id;
  if (hasId && !isRequestId(id)) {
    return { kind: 'invalid', code: INVALID_REQUEST, message: 'Invalid Request: id must be a string or a number' };
  }
  if (hasId && !isExactId(id as RequestId)) {
    return {
      kind: 'invalid', code: INVALID_REQUEST,
      message: 'Invalid Request: an integer id must lie within ±(2^53 - 1) to be echoed exactly; send a larger id as a string',
    };
  }
  const replyId = hasId ? (id as RequestId) : undefined;
  if (value.jsonrpc !== '2.0') {
    return { kind: 'invalid', id: replyId, code: INVALID_REQUEST, message: 'Invalid Request: jsonrpc must be "2.0"' };
  }
  if (!('method' in value) && hasId && ('result' in value || 'error' in value)) {
    return { kind: 'response' };
  }
  if (typeof value.method !== 'string' || value.method === '') {
    return { kind: 'invalid', id: replyId, code: INVALID_REQUEST, message: 'Invalid Request: method must be a non-empty string' };
  }
  const params = value.params;
  if (params !== undefined && typeof params !== 'object') {
    return { kind: 'invalid', id: replyId, code: INVALID_REQUEST, message: 'Invalid Request: params must be an object' };
  }
  if (params === null) {
    return { kind: 'invalid', id: replyId, code: INVALID_REQUEST, message: 'Invalid Request: params must be an object' };
  }
  const method = value.method;
  if (replyId === undefined) return { kind: 'notification', method, params: params as Params };
  return { kind: 'request', id: replyId, method, params: params as Params };
}

// A minimal codec for store tests: plain JSON with the v2 top-level shape
// checked. The store must behave the same with the engine's real codec.
import type { State } from '../../src/engine/types';
import type { StateCodec, ParseStateResult } from '../../src/store/codec';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const TEST_CODEC: StateCodec = {
  emptyState(): State {
    return { schema_version: 2, channels: {}, messages: {}, queues: {}, delivered_to: {}, errors: [] };
  },
  parseState(text: string): ParseStateResult {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { ok: false, reason: `not JSON: ${(err as Error).message}` };
    }
    if (!isObject(value)) return { ok: false, reason: 'state root is not an object' };
    if (value.schema_version !== 2) return { ok: false, reason: `schema_version mismatch: expected 2, got ${String(value.schema_version)}` };
    for (const key of ['channels', 'messages', 'queues', 'delivered_to']) {
      if (!isObject(value[key])) return { ok: false, reason: `${key} is not an object` };
    }
    if (!Array.isArray(value.errors)) return { ok: false, reason: 'errors is not an array' };
    return { ok: true, state: value as unknown as State, notes: [] };
  },
  serializeState(state: State): string {
    return JSON.stringify(state);
  },
};

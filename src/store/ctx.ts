// The engine context a store hands to engine changes: the clock, fresh ids
// and nonces, hashing, the history, and process liveness on this machine.
import { randomHex, sha256Hex } from '../process/crypto';
import { isRecordedProcessAlive } from '../process/liveness';
import type { EngineCtx, HistoryView } from '../engine/types';

/** Builds the EngineCtx the store hands to engine operations. */
export function createEngineCtx(now: () => number, history: HistoryView): EngineCtx {
  return {
    now,
    newId: (prefix) => prefix + randomHex(16),
    nonce: () => randomHex(8),
    hash32: (text) => sha256Hex(text).slice(0, 32),
    history,
    isProcessAlive: (proc) => isRecordedProcessAlive(proc),
  };
}

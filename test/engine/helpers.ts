// A fake EngineCtx (a clock you move by hand, counter ids and nonces, an
// in-memory history) and small builders shared by the engine tests.
import {
  commitDelivery, createChannel, joinChannel, emptyState, pullMessages, takeFinished,
  type EngineCtx, type HistoryRecord, type HistoryView, type PullOptions, type State, type ToolResult,
} from '../../src/engine/index';

export class MemoryHistory implements HistoryView {
  readonly byChannel = new Map<string, HistoryRecord[]>();

  find(channelId: string, messageId: string): HistoryRecord | undefined {
    return this.byChannel.get(channelId)?.find((r) => r.message_id === messageId);
  }

  list(channelId: string): HistoryRecord[] {
    return [...(this.byChannel.get(channelId) ?? [])];
  }

  append(record: HistoryRecord): void {
    const list = this.byChannel.get(record.channel_id) ?? [];
    if (!list.some((r) => r.message_id === record.message_id)) list.push(record);
    this.byChannel.set(record.channel_id, list);
  }

  all(): HistoryRecord[] {
    return [...this.byChannel.values()].flat();
  }
}

function hex32(n: number): string {
  return n.toString(16).padStart(32, '0');
}

export interface FakeCtx extends EngineCtx {
  history: MemoryHistory;
  advance(ms: number): void;
  set(ms: number): void;
}

export function fakeCtx(start = 1_000_000): FakeCtx {
  let clock = start;
  let ids = 0;
  let nonces = 0;
  const history = new MemoryHistory();
  return {
    history,
    now: () => clock,
    advance: (ms: number) => { clock += ms; },
    set: (ms: number) => { clock = ms; },
    newId: (prefix) => `${prefix}${hex32(++ids)}`,
    nonce: () => `n${(++nonces).toString(36)}x${(nonces * 7919).toString(36)}`,
    hash32: (text: string) => {
      let a = 0x811c9dc5;
      let b = 0x01000193;
      for (let i = 0; i < text.length; i += 1) {
        a = Math.imul(a ^ text.charCodeAt(i), 16777619) >>> 0;
        b = Math.imul(b + text.charCodeAt(i), 2246822519) >>> 0;
      }
      return (a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0')).repeat(2);
    },
  };
}

/** What the store does at save: finished envelopes leave state for history (the engine's own takeFinished). */
export function simulateSave(state: State, history: MemoryHistory): void {
  for (const records of takeFinished(state).values()) for (const record of records) history.append(record);
}

export const PROJECT = 'proj-a';
export const WORKTREE = '/work/tree';

export function mustOk(result: ToolResult): ToolResult {
  if (!result.ok) throw new Error(`expected ok, got ${result.message} (${JSON.stringify(result.data)})`);
  return result;
}

export function reasonOf(result: ToolResult): unknown {
  return result.ok ? undefined : result.data?.reason;
}

/** A state with one channel "dev" whose members are the given ids, roles R0, R1, ... */
export function channelWith(ctx: EngineCtx, ids: string[], name = 'dev', state: State = emptyState(), extra: Record<string, unknown> = {}): State {
  mustOk(createChannel(state, {
    channel: name, role: 'R0', role_prompt: 'lead', session_id: ids[0]!, project_id: PROJECT, worktree: WORKTREE,
    delivery_mode: 'pull', ...extra,
  }, ctx));
  ids.slice(1).forEach((id, i) => {
    mustOk(joinChannel(state, {
      channel: name, role: `R${i + 1}`, role_prompt: 'helper', session_id: id, project_id: PROJECT, worktree: WORKTREE, delivery_mode: 'pull',
    }, ctx));
  });
  return state;
}

export const OWNER = { pid: 100, host: 'test', lease_until: Number.MAX_SAFE_INTEGER };

/**
 * A pull whose reply reached the host: the locked drain of pullMessages, then
 * the commit the MCP server makes once the reply was written (PROTOCOL 7.1).
 */
export function pullDelivered(state: State, recipient: string, options: Omit<PullOptions, 'owner'>, ctx: EngineCtx): ToolResult {
  const owner = { pid: 100, host: 'test', lease_until: ctx.now() + 60_000 };
  const result = pullMessages(state, recipient, { ...options, owner }, ctx);
  if (result.ok) commitDelivery(state, recipient, result.data!.message_ids as string[], 'pull', ctx.now(), owner);
  return result;
}

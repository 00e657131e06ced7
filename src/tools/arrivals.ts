// The send reply's honest word per recipient: how and when it will get the
// message (engine/arrival), judged from the state just written and, on this
// machine, from each recipient's turn record (what its hooks last said).
import * as engine from '../engine';
import type { EngineCtx, State, ToolResult } from '../engine';
import { readTurnRecord } from '../local/turn-records';

/** `result` (a successful send) with `data.arrivals` and one line per recipient added to its message. */
export function withArrivals(result: ToolResult, state: State, ctx: EngineCtx, projectDir: string, channelName: string): ToolResult {
  const ids = result.data?.recipients;
  if (!result.ok || !Array.isArray(ids)) return result;
  const channel = engine.findChannel(state, channelName);
  const now = ctx.now();
  const isAlive = ctx.isProcessAlive ?? engine.JUDGE_BY_LEASE;
  const arrivals: engine.Arrival[] = [];
  for (const id of ids as string[]) {
    const member = channel?.members.find((m) => m.session_id === id);
    if (!member) continue;
    const session = member.host_session_id;
    const phase = typeof session === 'string' && session !== '' ? readTurnRecord(projectDir, session)?.phase : undefined;
    arrivals.push(engine.arrivalFor(state, member, now, isAlive, phase));
  }
  if (arrivals.length === 0) return result;
  const lines = arrivals.map((a) => `- ${a.text}`).join('\n');
  return { ...result, message: `${result.message}\nHow it arrives:\n${lines}`, data: { ...result.data, arrivals } };
}

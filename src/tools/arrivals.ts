// The send reply's honest word per recipient: how and when it will get the
// message (engine/arrival). The send change answers with what the state it
// wrote says of each recipient (`arrival_facts`); this process adds, on this
// machine, each recipient's turn record (what its hooks last said).
import * as engine from '../engine';
import type { ToolResult } from '../engine';
import { readTurnRecord } from '../local/turn-records';

/** `result` (a successful send) with `data.arrivals` and one line per recipient added to its message, in place of its facts. */
export function withArrivals(result: ToolResult, projectDir: string): ToolResult {
  const facts = result.data?.arrival_facts;
  if (!result.ok || !Array.isArray(facts)) return result;
  const { arrival_facts: _facts, ...data } = result.data!;
  const arrivals = (facts as engine.ArrivalFacts[]).map((f) =>
    engine.arrivalOf(f, f.host_session_id === null ? undefined : readTurnRecord(projectDir, f.host_session_id)?.phase));
  if (arrivals.length === 0) return { ...result, data };
  const lines = arrivals.map((a) => `- ${a.text}`).join('\n');
  return { ...result, message: `${result.message}\nHow it arrives:\n${lines}`, data: { ...data, arrivals } };
}

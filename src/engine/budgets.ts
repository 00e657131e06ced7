// Channel budgets: a runtime measured from creation and a count of handovers.
import { refuse, type Refusal } from './reasons';
import type { Channel } from './types';

/** The refusal a send (or a handover) meets when a budget is used up, else null. */
export function budgetRefusal(channel: Channel, now: number): Refusal | null {
  const { max_runtime_ms: runtime, max_delivered_messages: messages } = channel.budgets;
  if (runtime !== null && now - channel.created_at > runtime) {
    return refuse('budget_exhausted', `Channel "${channel.name}" has used its runtime budget (${Math.round(runtime / 60_000)} min).`, { budget: 'runtime' });
  }
  if (messages !== null && channel.delivered_total >= messages) {
    return refuse('budget_exhausted', `Channel "${channel.name}" has used its message budget (${messages} delivered).`, { budget: 'messages' });
  }
  return null;
}

// The standing role reminder OpenCode adds to a member session's system
// prompt on every turn, so the role survives compaction and long sessions.
import { memberInfosFor, type State } from '../engine';

export const ROLE_SECTION_HEADER = '## OpenComms role instructions';

/** One section per channel the session's member is in; empty when it is in none. */
export function roleSections(state: State, memberId: string): string[] {
  return memberInfosFor(state, memberId).map((info) => [
    ROLE_SECTION_HEADER,
    `You are the ${info.role} on OpenComms channel "${info.channel_name}".`,
    info.prompt.trim(),
  ].filter((line) => line !== '').join('\n'));
}

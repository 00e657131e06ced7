// Shell writes (PROTOCOL 8.5): a shell command can write a held file without
// naming it where a parser sees it, so the hook compares the held files
// before and after the call. These are the pure halves: which patterns to
// watch for a session, and the notice a holder gets when one changed.
import { claimHolds } from './task-board';
import { queueEnvelopes, rootThread } from './compose';
import { liveReservations } from './reservations';
import { formatIsoTime } from './times';
import type { EngineCtx, ProcessCheck, State } from './types';

/** The sender of the notice: OpenComms itself, so nobody answers it by mistake. */
const SHELL_NOTICE_SENDER = { session_id: 'opencomms', role: 'OpenComms' };

/**
 * The patterns other members hold exclusively (the lifetime rule of 5.6),
 * each once, in every channel: what a shell call by `memberId` (undefined
 * for a session with no member yet) must not change.
 */
export function patternsHeldByOthers(state: State, memberId: string | undefined, now: number, isAlive: ProcessCheck): string[] {
  const patterns = new Set<string>();
  for (const channel of Object.values(state.channels)) {
    if (!channel.reservations) continue;
    for (const r of liveReservations(state, channel, now, isAlive)) {
      if (r.exclusive && r.member_id !== memberId) patterns.add(r.path);
    }
  }
  for (const hold of claimHolds(state, now, isAlive)) if (hold.member_id !== memberId) patterns.add(hold.path);
  return [...patterns];
}

/** Who ran the shell call: its member, or a session with none yet (named by its host). */
export interface ShellWriter {
  memberId: string | undefined;
  host: string;
}

/** How a shell writer is named in our own sentences. */
export function describeShellWriter(state: State, writer: ShellWriter): string {
  if (writer.memberId === undefined) return `a ${writer.host} session with no OpenComms member yet`;
  const role = Object.values(state.channels).flatMap((c) => c.members).find((m) => m.session_id === writer.memberId)?.role;
  return role === undefined ? `member ${writer.memberId}` : `${role} (${writer.memberId})`;
}

// A name is plain when it holds only path characters; any other character
// that cannot start a line, hide itself or end our quotes is shown as it is.
const PLAIN_FILE_NAME = /^[A-Za-z0-9._/@+=,~%#*?-]+$/;
const ESCAPED_IN_NAME = /[\p{C}\p{Zl}\p{Zp}"\\]|(?! )\p{Zs}/u;

/**
 * A file name as our own sentences show it. A file's name is peer data (any
 * session can create a file called "x\n[OpenComms] …"), so a name that is
 * not plain path characters is quoted, with every control, line or paragraph
 * break, format character (bidi marks, zero-width), unusual space, quote and
 * backslash written as an escape: it stays on its line and reads as a name.
 */
export function shownFileName(file: string): string {
  if (PLAIN_FILE_NAME.test(file)) return file;
  let shown = '';
  for (const char of file) {
    if (char === '"' || char === '\\') shown += `\\${char}`;
    else if (ESCAPED_IN_NAME.test(char)) shown += `\\u{${char.codePointAt(0)!.toString(16)}}`;
    else shown += char;
  }
  return `"${shown}"`;
}

/**
 * Tells each exclusive holder of `file` (repo-relative) that it changed
 * during a shell call of `writer` that ended at `ctx.now()`: a `system`
 * message in the channel where the reservation lives. Returns the holders
 * told, as `member_id`s.
 */
export function noteShellWrite(state: State, writer: ShellWriter, file: string, holders: readonly { holder: string; channel: string }[], ctx: EngineCtx): string[] {
  const told: string[] = [];
  const who = describeShellWriter(state, writer);
  const at = formatIsoTime(ctx.now());
  for (const { holder, channel: name } of holders) {
    const channel = Object.values(state.channels).find((c) => c.name === name);
    const member = channel?.members.find((m) => m.session_id === holder);
    if (!channel || !member || told.includes(`${holder} ${name}`)) continue;
    const content = `OpenComms notice: ${shownFileName(file)}, which you hold exclusively, changed during a shell command of ${who}, which ended at ${at}. `
      + 'Check the file; if the change is unwanted, tell them (opencomms_send) or restore it.';
    queueEnvelopes(state, channel, SHELL_NOTICE_SENDER, [member], { message_type: 'system', content, thread: rootThread(ctx) }, ctx);
    told.push(`${holder} ${name}`);
  }
  return told.map((t) => t.split(' ')[0]!);
}

// No agent writes under `.opencomms/` (PROTOCOL 8.4; docs/threat-model.md): the folder holds
// the project's shared state, the shell records, the pins and the server
// every host starts. A tool call (an edit, or a shell command that plainly
// writes there) is refused before it runs for every session, whoever holds
// what; agents change the state only through the opencomms tools. Best
// effort, like every plain-write check: a write through a program that names
// no such path is not seen.
import { patternsOverlap } from '../engine';
import { STATE_DIR_NAME } from '../local/state-dir';
import { denyAnswer, type HookAnswer } from './answer';
import type { HookEvent } from './events';
import type { ToolTargets } from './tool-targets';

/** Of the files a call writes (project-relative, globs kept), those under `.opencomms/`. */
export function stateDirWrites(files: readonly string[]): string[] {
  return files.filter((file) => {
    const first = file.split('/')[0]!;
    // A shell glob reaches a dot folder only through a leading dot of its own (`*` does not).
    return first.startsWith('.') && patternsOverlap(first, STATE_DIR_NAME);
  });
}

/** The refusal of a call that writes under `.opencomms/`, or undefined when it writes nothing there. */
export function stateDirRefusal(files: readonly string[], action: 'edit' | 'command'): string | undefined {
  const inside = [...new Set(stateDirWrites(files))];
  if (inside.length === 0) return undefined;
  // The names are the caller's own words, shown as JSON strings: one line each, whatever they hold.
  const named = inside.slice(0, 5).map((file) => JSON.stringify(file)).join(', ') + (inside.length > 5 ? ` and ${inside.length - 5} more` : '');
  const opening = action === 'edit'
    ? 'OpenComms refused this edit on purpose (nothing failed):'
    : 'OpenComms refused this shell command on purpose, before it ran (nothing failed):';
  return `${opening} it writes ${named} under ${STATE_DIR_NAME}/, where OpenComms keeps the project's shared state. `
    + `No agent writes there, whatever it holds: change the state through the opencomms tools (opencomms_send, opencomms_release, opencomms_task, …); `
    + 'a person uses the opencomms command.';
}

/** The host's deny of a pre-tool event whose targets lie under `.opencomms/`, or undefined. */
export function stateDirAnswer(event: HookEvent, targets: ToolTargets): HookAnswer | undefined {
  const text = stateDirRefusal(targets.files, targets.shell === undefined ? 'edit' : 'command');
  return text === undefined ? undefined : denyAnswer(event, text);
}

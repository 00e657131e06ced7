// How the person runs this program, so the commands our output suggests are
// ones they can paste: `opencomms …` only when that name on their PATH is
// this very file, else `node <the script> …` (from a clone, a copied file or
// an unpacked tarball, `opencomms` is not a command their shell knows).
import { realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';

/** What main.ts knows about this process: process.argv[1], the working folder, PATH. */
export interface InvocationFacts {
  script: string | undefined;
  cwd: string;
  pathEnv: string | undefined;
}

/** The subcommands a suggestion may name; the text after `opencomms ` must be one of them. */
const SUBCOMMANDS = 'install|uninstall|pin|status|watch|say|read|pause|resume|reservations|task|hook|doctor|migrate';
// `opencomms ` not inside a path or a word (.opencomms/, opencomms_send), before a subcommand that is
// not a log prefix (`opencomms watch: cannot read…` names the program, it suggests nothing).
const SUGGESTION = new RegExp(`(?<![\\w./@-])opencomms (?=(?:${SUBCOMMANDS})\\b(?!:))`, 'g');

function tryRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** A word the shell reads back as itself: single quotes unless it needs none. */
function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line that starts this program as the person would type it:
 * `opencomms` when a PATH entry of that name resolves to this script, else
 * `node <script>`, relative when the script is under the working folder.
 * npm's own `node_modules/.bin` entries do not count: npm and npx put them on
 * PATH for their run only, and the person's shell does not have them.
 */
export function invokedCommand(facts: InvocationFacts): string {
  const script = facts.script;
  if (script === undefined || script === '') return 'opencomms';
  const real = tryRealpath(script);
  for (const dir of (facts.pathEnv ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir) || dir.endsWith(`node_modules${sep}.bin`)) continue;
    if (real !== undefined && tryRealpath(join(dir, 'opencomms')) === real) return 'opencomms';
  }
  const shown = relative(facts.cwd, script);
  const isUnder = shown !== '' && !shown.startsWith('..') && !isAbsolute(shown);
  return `node ${shellWord(isUnder ? shown : script)}`;
}

/** `text`, one of our own messages, with each suggested `opencomms <subcommand>` in the form `command`. */
export function asInvoked(text: string, command: string): string {
  return command === 'opencomms' ? text : text.replace(SUGGESTION, `${command} `);
}

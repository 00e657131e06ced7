// Keeps what passes between the hooks and the shell checker of a project
// (PROTOCOL 8.5, "The checker"), for the real-host checks. Each ask
// (`<key>.ask-<pid>`) and each answer (`<key>.answer-<pid>.json`) that appears
// in .opencomms/shell/ is a line {at, kind, key, pid, text} in
// --out/answers.jsonl, in the order the kernel reported them (a name is
// reported even when the file is gone by the time this process reads the
// event). An answer is hard-linked into --out at once and its text kept; the
// hook removes it within a few ms of reading it, so on a busy machine its
// text can be gone first (text null). A file `.sync-<n>` made there is a
// line {kind: "sync", n}: once it is written, every event before it is too.
// Runs until killed.
//   node scripts/shell-answers.mjs --dir PROJECT/.opencomms/shell --out DIR
import { appendFileSync, existsSync, linkSync, mkdirSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const dir = arg('--dir');
const out = arg('--out');
mkdirSync(out, { recursive: true });
const NAME = /^([0-9a-f]{16,64})\.(ask|answer)-(\d+)(\.json)?$/;
const seen = new Set();
let count = 0;
// The folder appears once a server of the project starts its checker.
for (let waited = 0; !existsSync(dir); waited += 50) {
  if (waited > 30_000) throw new Error(`${dir} did not appear within 30 s`);
  await delay(50);
}
watch(dir, (_event, name) => {
  const sync = name === null ? null : /^\.sync-(\d+)$/.exec(name);
  if (sync !== null && !seen.has(name)) {
    seen.add(name);
    appendFileSync(join(out, 'answers.jsonl'), `${JSON.stringify({ at: Date.now(), kind: 'sync', n: Number(sync[1]) })}\n`);
    return;
  }
  const match = name === null ? null : NAME.exec(name);
  if (match === null || seen.has(name) || (match[2] === 'answer') !== (match[4] === '.json')) return;
  seen.add(name);
  let text = null;
  if (match[2] === 'answer') {
    count += 1;
    try {
      const copy = join(out, `${count}-${name}`);
      linkSync(join(dir, name), copy);
      text = readFileSync(copy, 'utf8');
    } catch {
      // already taken by the hook
    }
  }
  appendFileSync(join(out, 'answers.jsonl'), `${JSON.stringify({ at: Date.now(), kind: match[2], key: match[1], pid: Number(match[3]), text })}\n`);
});
process.stdout.write('watching\n');

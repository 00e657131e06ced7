// Keeps what the shell watch answers in a project (PROTOCOL 8.6, "The
// watch"), for the real-host checks: each `<key>.answer-<pid>.json` that
// appears in .opencomms/shell/ is hard-linked at once into --out (the check
// after the call removes it within a few ms of reading it) and a line
// {at, name, pid, text} appended to --out/answers.jsonl (text null when it
// was gone before it could be linked). Runs until killed.
//   node scripts/shell-answers.mjs --dir PROJECT/.opencomms/shell --out DIR
import { appendFileSync, existsSync, linkSync, mkdirSync, readFileSync, watch } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const dir = arg('--dir');
const out = arg('--out');
mkdirSync(out, { recursive: true });
const ANSWER = /^[0-9a-f]{16,64}\.answer-(\d+)\.json$/;
const seen = new Set();
let count = 0;
// The folder appears once a server of the project starts its watch.
for (let waited = 0; !existsSync(dir); waited += 50) {
  if (waited > 30_000) throw new Error(`${dir} did not appear within 30 s`);
  await delay(50);
}
watch(dir, (_event, name) => {
  if (name === null || seen.has(name) || !ANSWER.test(name)) return;
  seen.add(name);
  count += 1;
  const copy = join(out, `${count}-${name}`);
  let text = null;
  try {
    linkSync(join(dir, name), copy);
    text = readFileSync(copy, 'utf8');
  } catch {
    // removed (after being read by the check) before it could be linked
  }
  appendFileSync(join(out, 'answers.jsonl'), `${JSON.stringify({ at: Date.now(), name, pid: Number(ANSWER.exec(name)[1]), text })}\n`);
});
process.stdout.write('watching\n');

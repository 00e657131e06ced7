// Keeps what the shell checker answers in a project (PROTOCOL 8.6, "The
// checker"), for the real-host checks. The hook removes an answer within a
// few ms of reading it, so on each ask (`<key>.ask-<pid>`) this process
// tries at once, and again until the answer is there (at most 1 s), to
// hard-link `<key>.answer-<pid>.json` into --out; then appends a line
// {at, name, pid, text} to --out/answers.jsonl (text null when the answer
// was not caught). Runs until killed.
//   node scripts/shell-answers.mjs --dir PROJECT/.opencomms/shell --out DIR
import { appendFileSync, existsSync, linkSync, mkdirSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const dir = arg('--dir');
const out = arg('--out');
mkdirSync(out, { recursive: true });
const ASK = /^([0-9a-f]{16,64})\.ask-(\d+)$/;
const seen = new Set();
let count = 0;
// The folder appears once a server of the project starts its checker.
for (let waited = 0; !existsSync(dir); waited += 50) {
  if (waited > 30_000) throw new Error(`${dir} did not appear within 30 s`);
  await delay(50);
}
watch(dir, (_event, name) => {
  const ask = name === null ? null : ASK.exec(name);
  if (ask === null || seen.has(name)) return;
  seen.add(name);
  count += 1;
  const answer = `${ask[1]}.answer-${ask[2]}.json`;
  const copy = join(out, `${count}-${answer}`);
  let text = null;
  for (const deadline = Date.now() + 1_000; Date.now() < deadline;) {
    try {
      linkSync(join(dir, answer), copy);
      text = readFileSync(copy, 'utf8');
      break;
    } catch {
      // not written yet (or already taken): try again
    }
  }
  appendFileSync(join(out, 'answers.jsonl'), `${JSON.stringify({ at: Date.now(), name: answer, pid: Number(ask[2]), text })}\n`);
});
process.stdout.write('watching\n');

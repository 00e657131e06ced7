// docs/delivery.md's table of how mail reaches each host is the table the
// code uses (deliveryPaths, which the send reply reads): same hosts, same
// states, same paths and delays, row for row. Every other page tells the
// same story: the README's summary is rendered from it, restatements sit in
// marked blocks in its words, and no sentence of the docs contradicts it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deliveryPaths, PATH_HOSTS, TURN_STATES } from '../src/engine/arrival';
import {
  blockProblemsIn, checkFiles, contradictionsIn, describeContradiction, factBlocks, HOST_TITLES, renderDeliverySummary, summaryBlock, unitsOf,
} from './helpers/delivery-docs';

const ROOT = join(__dirname, '..', '..');

function docRows(): string[][] {
  const text = readFileSync(join(ROOT, 'docs', 'delivery.md'), 'utf8');
  const start = text.indexOf('<!-- delivery-paths:start -->');
  const end = text.indexOf('<!-- delivery-paths:end -->');
  assert.ok(start >= 0 && end > start, 'docs/delivery.md marks its table');
  return text.slice(start, end).split('\n')
    .filter((line) => line.startsWith('|') && !line.startsWith('|---') && !line.startsWith('| host |'))
    .map((line) => line.slice(1, -1).split(' | ').map((cell) => cell.trim()));
}

test('docs/delivery.md shows exactly the delivery paths the code uses', () => {
  const fromCode = PATH_HOSTS.flatMap((host) => TURN_STATES.map((state) => [host, state, deliveryPaths[host][state].path, deliveryPaths[host][state].delay]));
  assert.deepEqual(docRows(), fromCode);
});

test('every host has a path for every state', () => {
  for (const host of PATH_HOSTS) assert.deepEqual(Object.keys(deliveryPaths[host]).sort(), [...TURN_STATES].sort(), host);
});

// ---- One story across the docs: every page says what the table says. ----

const readDoc = (name: string): string => readFileSync(join(ROOT, name), 'utf8');

/** Every page a reader may take a delivery claim from. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
  return ['README.md', 'PROTOCOL.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', ...docs];
}
/** Where OpenCode's package may be named only in its needs block: the user's pages (CONTRIBUTING names it as a devDependency). */
const userPage = (name: string): boolean => name === 'README.md' || name.startsWith('docs/');

test('the README\'s delivery summary is the delivery table, host by host and state by state (npm run docs writes it)', () => {
  const block = summaryBlock(readDoc('README.md'));
  assert.ok(block !== undefined, 'README.md has the delivery summary markers');
  assert.equal(block, renderDeliverySummary(), 'README.md\'s delivery summary differs from deliveryPaths: run npm run docs');
  for (const host of PATH_HOSTS) assert.ok(block.includes(`| ${HOST_TITLES[host]} | ${deliveryPaths[host].busy.path} |`), host);
});

test('docs/push.md restates the idle column only in marked blocks, each in the table\'s words', () => {
  const push = readDoc('docs/push.md');
  assert.deepEqual(factBlocks(push).map((b) => b.key).sort(), PATH_HOSTS.map((h) => `${h}-idle`).sort());
  const problems = pages().flatMap((name) => blockProblemsIn(name, readDoc(name)));
  assert.deepEqual(problems.map(describeContradiction), []);
});

test('no page contradicts the delivery table (idle Claude Code, Codex, Gemini CLI, OpenCode; the channels flag; OpenCode\'s package)', () => {
  const units = pages().reduce((n, name) => n + unitsOf(readDoc(name)).length, 0);
  assert.ok(units > 1000, `the scan read only ${units} sentences and table rows`);
  const found = checkFiles(ROOT, pages(), userPage);
  assert.deepEqual(found.map(describeContradiction), []);
});

test('the checker names the file and line of a contradiction planted in a copy of a page', (t) => {
  const base = mkdtempSync(join(tmpdir(), 'oc-story-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  mkdirSync(join(base, 'docs'));
  const original = readDoc('docs/push.md');
  writeFileSync(join(base, 'docs', 'push.md'), original);
  assert.deepEqual(checkFiles(base, ['docs/push.md'], userPage), [], 'premise: the copy as it stands is clean');

  const lines = original.split('\n');
  const afterHeader = lines.findIndex((l) => l.startsWith('| host | how an idle session learns of mail'));
  const intro = lines.findIndex((l) => l.startsWith('Hooks only run when the agent is doing something.'));
  assert.ok(afterHeader > 0 && intro > 0, 'premise: docs/push.md has its idle table');
  const planted: Array<{ at: number; text: string; says: RegExp }> = [
    { at: intro, text: 'An idle Codex session gets nothing until its next prompt.', says: /idle Codex session gets no wake-up.*codex queue/ },
    { at: intro, text: 'A plain Claude Code install needs `--dangerously-load-development-channels server:opencomms` to be woken when idle.', says: /Claude Code needs the channels flag/ },
    { at: intro, text: 'An idle Gemini CLI session is woken through its inbox.', says: /idle Gemini CLI session is woken/ },
    { at: intro, text: 'OpenCode needs `@opencode-ai/plugin` installed by hand.', says: /names @opencode-ai\/plugin outside/ },
    { at: afterHeader + 2, text: '| Gemini CLI, Codex | nothing between turns | nothing |', says: /idle Codex session gets no wake-up/ },
  ];
  const copy = [...lines];
  // From the bottom up, so each planted line's number is known after the insertions.
  const order = planted.map((p, i) => ({ ...p, i })).sort((a, b) => b.at - a.at || b.i - a.i);
  for (const p of order) copy.splice(p.at, 0, p.text, '');
  const blockLine = copy.findIndex((l) => l.includes('<!-- delivery:codex-idle -->'));
  copy[blockLine] = copy[blockLine]!.replace('runs `codex queue --thread`', 'runs `codex exec resume`');
  writeFileSync(join(base, 'docs', 'push.md'), copy.join('\n'));

  const found = checkFiles(base, ['docs/push.md'], userPage);
  const expected = planted.map((p) => ({ line: copy.indexOf(p.text) + 1, says: p.says }));
  expected.push({ line: blockLine + 1, says: /block delivery:codex-idle differs from the delivery table/ });
  for (const e of expected) {
    assert.ok(found.some((f) => f.file === 'docs/push.md' && f.line === e.line && e.says.test(f.problem)), `docs/push.md:${e.line} ${String(e.says)} not reported; found:\n${found.map(describeContradiction).join('\n')}`);
  }
  assert.equal(found.length, expected.length, found.map(describeContradiction).join('\n'));
});

test('a sentence that contrasts a host the table wakes with one it does not is left alone', () => {
  const text = 'An idle Gemini CLI session waits for its next prompt, while an idle Codex session is woken through `codex queue`.\n';
  assert.deepEqual(contradictionsIn('x.md', text), []);
  assert.equal(contradictionsIn('x.md', 'An idle Codex session waits for its next prompt.\n').length, 1, 'premise: alone, the claim is reported');
});

test('a marked block left open is reported, and does not swallow the page up to the next block', () => {
  const text = 'Codex: <!-- delivery:codex-idle -->its own server\n\nLater: <!-- delivery:codex-busy -->PostToolUse hook: in context after its next tool call<!-- /delivery -->\n';
  const problems = blockProblemsIn('x.md', text);
  assert.deepEqual(problems.map((p) => [p.line, /not closed/.test(p.problem)]), [[1, true]]);
});

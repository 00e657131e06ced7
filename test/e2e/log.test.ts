// `opencomms log`: the transcript a person reads. Real server processes send
// on either store; the CLI (dist/opencomms.js) reads it back, lock-free, with
// no terminal.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, runCli, tempProject, type Json } from '../helpers/server';
import { hasScript, runCliInTerminal } from '../helpers/person-terminal';
import { WatchProcess } from '../watch/watch-process';
import { bothStores, type Rig } from './store-rig';
import { create, join as joinChannel, member, ok } from './tools-support';

const CLEAN_ENV = { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined } as const;
// What a terminal would act on: ANSI escapes, C1, bidi overrides and isolates, line and paragraph separators.
const TERMINAL_DRIVERS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

async function logOf(rig: Rig, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { project, env } = rig.cli();
  return runCli(['log', '--project', project, ...args], { env: { ...CLEAN_ENV, ...env } });
}

async function jsonLog(rig: Rig, args: string[] = []): Promise<Json> {
  const ran = await logOf(rig, ['--json', ...args]);
  assert.equal(ran.code, 0, ran.stderr);
  return JSON.parse(ran.stdout) as Json;
}

/** alice (writer) and bob (reviewer) on "review" and "build". */
async function twoChannels(rig: Rig): Promise<{ alice: Awaited<ReturnType<Rig['member']>>; bob: Awaited<ReturnType<Rig['member']>> }> {
  const alice = await rig.member('alice-1');
  const bob = await rig.member('bob-1');
  await create(alice, 'review', 'writer');
  await joinChannel(bob, 'review', 'reviewer');
  await create(alice, 'build', 'writer');
  await joinChannel(bob, 'build', 'reviewer');
  return { alice, bob };
}

bothStores('log prints the messages of every channel in send order, with sender, type, reply chain and path', { timeout: 60_000 }, async (_t, rig) => {
  const { alice, bob } = await twoChannels(rig);
  const asked = await ok(alice, 'opencomms_send', { channel: 'review', content: 'please review', type: 'review_request' });
  await ok(alice, 'opencomms_send', { channel: 'build', content: 'build is green' });
  await ok(bob, 'opencomms_pull', {});
  await ok(bob, 'opencomms_send', { channel: 'review', content: 'looks good', type: 'review_response', reply_to: asked.data.message_ids[0] });
  const log = await jsonLog(rig);
  assert.deepEqual(log.messages.map((m: Json) => [m.channel, m.content]), [['review', 'please review'], ['build', 'build is green'], ['review', 'looks good']]);
  const [request, , answer] = log.messages;
  assert.deepEqual(request.from, { role: 'writer', member: 'alice-1', host: 'mcp', kind: 'agent' });
  assert.equal(request.type, 'review_request');
  assert.equal(answer.reply_to, request.message_id);
  assert.deepEqual(request.path.map((s: Json) => s.step), ['queued', 'delivered', 'answered']);
  assert.equal(request.path[1].via, 'pull');
  const plain = await logOf(rig, []);
  assert.equal(plain.code, 0, plain.stderr);
  const order = ['please review', 'build is green', 'looks good'].map((text) => plain.stdout.indexOf(`| ${text}`));
  assert.deepEqual([...order].sort((a, b) => a - b), order);
  assert.ok(order[0]! > 0);
});

bothStores('log heads the transcript with one line per channel counting messages, open review requests, tasks, reservations and problems', { timeout: 60_000 }, async (_t, rig) => {
  const { alice, bob } = await twoChannels(rig);
  await ok(alice, 'opencomms_send', { channel: 'review', content: 'please review', type: 'review_request' });
  await ok(alice, 'opencomms_send', { channel: 'review', content: 'and this' });
  await ok(alice, 'opencomms_reserve', { channel: 'review', paths: ['src/a.ts'] });
  // Taken and given back: gone from the channel's list, still counted as taken in the period.
  await ok(alice, 'opencomms_reserve', { channel: 'review', paths: ['src/b.ts', 'src/c.ts'] });
  await ok(alice, 'opencomms_release', { channel: 'review', paths: ['src/b.ts', 'src/c.ts'] });
  await ok(alice, 'opencomms_task', { action: 'add', title: 'port the cache', channel: 'review' });
  await ok(bob, 'opencomms_task', { action: 'next' });
  await ok(bob, 'opencomms_task', { action: 'done', id: 't1' });
  const log = await jsonLog(rig);
  assert.deepEqual(log.channels.map((c: Json) => c.channel), ['build', 'review']);
  const review = log.channels[1];
  assert.equal(review.messages, 2);
  assert.equal(review.open_review_requests, 1);
  assert.deepEqual(review.tasks, { done: 1, claimed: 1, asked: 0 });
  assert.deepEqual(review.reservations, { taken: 3, lapsed: 0 });
  assert.equal(review.problems, 0);
  assert.equal(log.channels[0].messages, 0);
  const plain = await logOf(rig, ['review']);
  const lines = plain.stdout.split('\n');
  assert.match(lines[1]!, /^channel review \(chn_[0-9a-f]+\): 2 message\(s\), 1 open review request\(s\), tasks 1 done \/ 1 claimed \/ 0 asked, reservations 3 taken \/ 0 lapsed, 0 problem\(s\)$/);
  assert.equal(lines.filter((l) => l.startsWith('channel ')).length, 1);
});

bothStores('log --since leaves out the messages sent before the period', { timeout: 60_000 }, async (_t, rig) => {
  const { alice } = await twoChannels(rig);
  await ok(alice, 'opencomms_send', { channel: 'review', content: 'before' });
  await ok(alice, 'opencomms_send', { channel: 'build', content: 'after' });
  const [before, after] = (await jsonLog(rig)).messages as Json[];
  // Two calls to a server process, one after the other, are never in one millisecond.
  assert.ok(before!.at < after!.at);
  const log = await jsonLog(rig, ['--since', new Date(after!.at).toISOString()]);
  assert.deepEqual(log.messages.map((m: Json) => m.content), ['after']);
  assert.deepEqual(log.channels.map((c: Json) => c.messages), [1, 0]);
  assert.deepEqual((await jsonLog(rig, ['--since', '1h'])).messages.map((m: Json) => m.content), ['before', 'after']);
});

test('log --since with a duration reaches back that long from now, in hours or days', { timeout: 60_000 }, async (t) => {
  const project = tempProject(t);
  const alice = await member(t, project, 'alice-1');
  const bob = await member(t, project, 'bob-1');
  await create(alice, 'review', 'writer');
  await joinChannel(bob, 'review', 'reviewer');
  await ok(alice, 'opencomms_send', { channel: 'review', content: 'just now' });
  const state = JSON.parse(readFileSync(join(project, '.opencomms', 'state.json'), 'utf8')) as Json;
  const sent = Object.values(state.messages as Record<string, Json>)[0]!;
  const historyDir = join(project, '.opencomms', 'history');
  mkdirSync(historyDir, { recursive: true });
  // Finished mail from three hours and from thirty days ago, as the history keeps it.
  const old = (hours: number, n: number): string => `${JSON.stringify({
    ...sent, message_id: `ocm_${String(n).repeat(32)}`, seq: n, timestamp: Date.now() - hours * 3_600_000, content: `${hours} hours ago`,
    delivery_status: 'delivered', delivered_at: Date.now() - hours * 3_600_000 + 1, delivered_to: ['bob-1'],
  })}\n`;
  appendFileSync(join(historyDir, `${sent.channel_id}.jsonl`), old(720, 1) + old(3, 2));
  const contents = async (since: string): Promise<string[]> => {
    const ran = await runCli(['log', '--project', project, '--json', '--since', since], { env: CLEAN_ENV });
    assert.equal(ran.code, 0, ran.stderr);
    return JSON.parse(ran.stdout).messages.map((m: Json) => m.content);
  };
  assert.deepEqual(await contents('2h'), ['just now']);
  assert.deepEqual(await contents('1d'), ['3 hours ago', 'just now']);
  // 31 days: longer than a Node timer can wait, which --since need not.
  assert.deepEqual(await contents('31d'), ['720 hours ago', '3 hours ago', 'just now']);
});

bothStores('log --json prints an object with channels and messages', { timeout: 60_000 }, async (_t, rig) => {
  const { alice } = await twoChannels(rig);
  await ok(alice, 'opencomms_send', { channel: 'build', content: 'hello' });
  const log = await jsonLog(rig);
  assert.deepEqual(Object.keys(log).sort(), ['channels', 'messages']);
  assert.deepEqual(Object.keys(log.channels[0]).sort(), ['channel', 'channel_id', 'messages', 'open_review_requests', 'problems', 'reservations', 'tasks']);
  assert.deepEqual(Object.keys(log.messages[0]).sort(), ['at', 'channel', 'channel_id', 'content', 'from', 'message_id', 'path', 'reply_to', 'thread_id', 'to', 'type']);
});

bothStores('log --follow prints a message sent after it started, and exits 0 on SIGINT', { timeout: 60_000 }, async (t, rig) => {
  const { alice } = await twoChannels(rig);
  const follower = startLog(t, rig, ['--follow']);
  await follower.matching(/^channel review /);
  await ok(alice, 'opencomms_send', { channel: 'review', content: 'sent while following' });
  await follower.matching(/^ {2}\| sent while following$/);
  follower.child.kill('SIGINT');
  assert.deepEqual(await follower.exit(), { code: 0, signal: null });
});

bothStores('log --follow prints a line when a printed message is delivered, then answered', { timeout: 60_000 }, async (t, rig) => {
  const { alice, bob } = await twoChannels(rig);
  const sent = await ok(alice, 'opencomms_send', { channel: 'review', content: 'waiting for bob' });
  const id = sent.data.message_ids[0] as string;
  const follower = startLog(t, rig, ['--follow']);
  await follower.matching(/^ {2}path: queued \S+$/);
  await ok(bob, 'opencomms_pull', {});
  await follower.matching(new RegExp(`^  \\[review\\] ${id}: delivered via pull \\S+$`));
  const answer = await ok(bob, 'opencomms_send', { channel: 'review', content: 'here I am', reply_to: id });
  await follower.matching(new RegExp(`^  \\[review\\] ${id}: answered by ${answer.data.message_ids[0]} \\S+$`));
  await follower.matching(/^ {2}\| here I am$/);
});

bothStores('log --follow --json prints the transcript as one line, then a line per new message and per path step, hostile text escaped', { timeout: 60_000 }, async (t, rig) => {
  const { alice, bob } = await twoChannels(rig);
  await ok(alice, 'opencomms_send', { channel: 'build', content: 'before' });
  const follower = startLog(t, rig, ['--follow', '--json']);
  const first = JSON.parse(await follower.line(1)) as Json;
  assert.deepEqual(first.messages.map((m: Json) => m.content), ['before']);
  const hostile = 'ok\u001b[2J\u009b31m\u202eevil\u2028next';
  const sent = await ok(alice, 'opencomms_send', { channel: 'review', content: hostile });
  const id = sent.data.message_ids[0] as string;
  const added = await follower.event('the new message', (e) => e.message?.message_id === id);
  assert.equal(added.message.content, hostile, 'the value is unchanged');
  await ok(bob, 'opencomms_pull', {});
  // A pull may be seen in flight first; the delivery follows as a line of its own.
  const moved = await follower.event('its delivery', (e) => e.path?.message_id === id && e.path.path.at(-1).step === 'delivered');
  assert.deepEqual(moved.path.path.map((s: Json) => s.step), ['queued', 'delivered']);
  for (const line of follower.lines) assert.doesNotMatch(line, TERMINAL_DRIVERS);
  follower.child.kill('SIGINT');
  assert.deepEqual(await follower.exit(), { code: 0, signal: null });
});

test('log makes hostile text harmless: escapes, bidi marks and line breaks in content and role names', { timeout: 60_000 }, async (t) => {
  const project = tempProject(t);
  const alice = await member(t, project, 'alice-1');
  const bob = await member(t, project, 'bob-1');
  await create(alice, 'review', 'writer');
  await joinChannel(bob, 'review', 'reviewer');
  const hostile = 'line one\u001b[2J\u001b]0;pwned\u0007\r\nline two\u202eevil\u2066\u2028fake line\u009b31m\u0085end';
  await ok(alice, 'opencomms_send', { channel: 'review', content: hostile });
  await ok(bob, 'opencomms_pull', {});
  // A role name with a line break and an escape, as a hand-edited or foreign history line could carry.
  const state = JSON.parse(readFileSync(join(project, '.opencomms', 'state.json'), 'utf8')) as Json;
  const sent = Object.values(state.messages as Record<string, Json>)[0]!;
  const historyDir = join(project, '.opencomms', 'history');
  mkdirSync(historyDir, { recursive: true });
  const forged = { ...sent, message_id: `ocm_${'f'.repeat(32)}`, seq: (sent.seq ?? 0) + 1, delivery_status: 'delivered', delivered_to: [], sender_role: 'writer\nchannel review: 0 message(s)\u001b[31m', recipient_role: 'rev\u2028iew\u061cer\u202e\u0085' };
  appendFileSync(join(historyDir, `${sent.channel_id}.jsonl`), `${JSON.stringify(forged)}\n`);
  const plain = await runCli(['log', '--project', project], { env: CLEAN_ENV });
  assert.equal(plain.code, 0, plain.stderr);
  assert.doesNotMatch(plain.stdout, TERMINAL_DRIVERS);
  assert.ok(plain.stdout.includes('  | line two'));
  assert.ok(plain.stdout.includes('] writer channel review: 0 mess... (alice-1, mcp, agent) -> '), plain.stdout);
  assert.ok(plain.stdout.includes(' -> rev iew er   (bob-1, mcp, agent): manual '), plain.stdout);
  assert.equal(plain.stdout.split('\n').filter((l) => l.startsWith('channel ')).length, 1);
  const json = await runCli(['log', '--project', project, '--json'], { env: CLEAN_ENV });
  assert.doesNotMatch(json.stdout.trimEnd(), TERMINAL_DRIVERS);
  assert.deepEqual(JSON.parse(json.stdout).messages.map((m: Json) => m.content), [hostile, hostile]);
});

test('log shows a person\'s message as a person\'s, with the terminal it was typed at', { timeout: 60_000, skip: !hasScript() && 'script (util-linux) is not installed' }, async (t) => {
  const project = tempProject(t);
  const alice = await member(t, project, 'alice-1');
  await create(alice, 'review', 'writer');
  const said = await runCliInTerminal(['say', '--project', project, 'review', 'from my terminal'], { env: { ...CLEAN_ENV, OPENCOMMS_PROJECT_ID: undefined } });
  assert.equal(said.code, 0, said.stderr);
  const log = await runCli(['log', '--project', project, '--json'], { env: CLEAN_ENV });
  const [message] = JSON.parse(log.stdout).messages;
  assert.equal(message.from.kind, 'person');
  assert.match(message.person_terminal.tty, /^\/dev\/pts\/\d+$/);
  const plain = await runCli(['log', '--project', project], { env: CLEAN_ENV });
  assert.match(plain.stdout, /\n {2}typed at \/dev\/pts\/\d+/);
});

function startLog(t: TestContext, rig: Rig, args: string[]): WatchProcess {
  const { project, env: storeEnv } = rig.cli();
  const env: Record<string, string | undefined> = { ...process.env, ...CLEAN_ENV, ...storeEnv };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, [DIST, 'log', '--project', project, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const reader = new WatchProcess(child);
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await reader.exited;
  });
  return reader;
}

const CHANNELS = ['c0', 'c1', 'c2', 'c3', 'c4'];
// Each channel holds this many records written by hand plus one sent for real: 2,000, what a log keeps.
const RECORDS_PER_CHANNEL = 1_999;
// Texts this long make the histories 45 MB: far more than the heap the log is given below.
const RECORD_TEXT_CHARS = 4_000;

/** A file project with five channels of 2,000 history records each, their times interleaved. */
async function seededProject(t: TestContext): Promise<string> {
  const project = tempProject(t);
  const alice = await member(t, project, 'alice-1');
  const bob = await member(t, project, 'bob-1');
  for (const name of CHANNELS) {
    await create(alice, name, 'writer');
    await joinChannel(bob, name, 'reviewer');
    await ok(alice, 'opencomms_send', { channel: name, content: `real on ${name}` });
  }
  await ok(bob, 'opencomms_pull', {});
  const state = JSON.parse(readFileSync(join(project, '.opencomms', 'state.json'), 'utf8')) as Json;
  const historyDir = join(project, '.opencomms', 'history');
  mkdirSync(historyDir, { recursive: true });
  const sent = Object.values(state.messages as Record<string, Json>);
  const base = Math.min(...sent.map((m) => m.timestamp as number)) - 1_000_000;
  for (const [c, name] of CHANNELS.entries()) {
    const template = sent.find((m) => m.channel_id === state.channels[name].id)!;
    const lines: string[] = [];
    for (let i = 0; i < RECORDS_PER_CHANNEL; i++) {
      const at = base + i * CHANNELS.length + c;
      const record = {
        ...template, message_id: `ocm_${at.toString(16).padStart(32, '0')}`, seq: 1_000_000 + at - base, timestamp: at,
        content: `record ${i} of ${name}: ${'x'.repeat(RECORD_TEXT_CHARS)}`, delivery_status: 'delivered', delivered_at: at + 1, delivered_to: ['bob-1'],
      };
      lines.push(`${JSON.stringify(record)}\n`);
    }
    // Odd channels' logs are written newest first: a log is in the order mail finished, which need not be the order it was sent.
    if (c % 2 === 1) lines.reverse();
    appendFileSync(join(historyDir, `${state.channels[name].id}.jsonl`), lines.join(''));
  }
  return project;
}

/** Runs the CLI under /usr/bin/time, for the peak resident memory (KiB) with what it printed. */
function runMeasured(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string; maxRssKib: number }> {
  const merged: Record<string, string | undefined> = { ...process.env, ...env };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  const child = spawn('/usr/bin/time', ['-f', 'maxrss_kib %M', process.execPath, DIST, ...args], { env: merged as NodeJS.ProcessEnv });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`log did not finish; stderr: ${stderr}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const rss = /maxrss_kib (\d+)/.exec(stderr);
      resolve({ code, stdout, stderr, maxRssKib: rss ? Number(rss[1]) : NaN });
    });
  });
}

/**
 * Both runs get a heap this small, under the 45 MB the histories hold: the
 * log must page through them, holding per message only what orders it.
 * (Measured here: loading the histories whole, as the log once did, fails
 * in a 48 MiB heap and needs 64; the paged log keeps about 10 MiB live,
 * Node's own 5 included, and passes in 20 to 32.)
 */
const HEAP_LIMIT_MIB = 32;
// And young-generation spaces this small, so what the process holds is what the log holds, whichever
// Node sizes its young generation larger by default (Node 26 does).
const SEMI_SPACE_MIB = 4;
const NO_TIME = !existsSync('/usr/bin/time') && '/usr/bin/time is not installed: it measures the peak memory';

bothStores('log prints 10,000 history records in send order across channels, in bounded memory', { timeout: 180_000 }, async (t, rig) => {
  if (NO_TIME) return t.skip(NO_TIME);
  const seeded = await seededProject(t);
  let target = { project: seeded, env: { ...CLEAN_ENV } as Record<string, string | undefined> };
  if (rig.kind === 'redis') {
    const { env } = rig.cli();
    const moved = await runCli(['migrate', '--to', env.OPENCOMMS_STORE!, '--project', seeded], { env: { ...CLEAN_ENV, ...env, OPENCOMMS_STORE: undefined } });
    assert.equal(moved.code, 0, moved.stderr);
    target = rig.cli();
  }
  const heap = { NODE_OPTIONS: `--max-old-space-size=${HEAP_LIMIT_MIB} --max-semi-space-size=${SEMI_SPACE_MIB}` };
  const json = await runMeasured(['log', '--project', target.project, '--json'], { ...CLEAN_ENV, ...target.env, ...heap });
  assert.equal(json.code, 0, json.stderr);
  const log = JSON.parse(json.stdout) as Json;
  assert.equal(log.messages.length, 10_000);
  assert.deepEqual(log.channels.map((c: Json) => c.messages), [2_000, 2_000, 2_000, 2_000, 2_000]);
  const times = log.messages.map((m: Json) => m.at as number);
  assert.ok(times.every((at: number, i: number) => i === 0 || times[i - 1]! <= at), 'in send order');
  assert.deepEqual(log.messages.slice(0, 6).map((m: Json) => m.content.slice(0, 17)), ['record 0 of c0: x', 'record 0 of c1: x', 'record 0 of c2: x', 'record 0 of c3: x', 'record 0 of c4: x', 'record 1 of c0: x']);
  assert.deepEqual(log.messages.slice(-5).map((m: Json) => m.content), CHANNELS.map((name) => `real on ${name}`));
  const plain = await runMeasured(['log', '--project', target.project], { ...CLEAN_ENV, ...target.env, ...heap });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout.split('\n').filter((l) => l.startsWith('  path: ')).length, 10_000);
  // The same Node with the same heap, doing nothing: what this Node version takes by itself.
  const bare = await runMeasured(['--version'], { ...CLEAN_ENV, ...heap });
  t.diagnostic(`peak RSS, ${rig.kind} store: --json ${json.maxRssKib} KiB, plain ${plain.maxRssKib} KiB; --version ${bare.maxRssKib} KiB`);
  // Measured: 38-57 MiB over --version on Node 20 and Node 26 (the heap is capped above; the rest is
  // code, output buffers and Node's own); the bound leaves room for noise.
  for (const run of [json, plain]) assert.ok(run.maxRssKib < bare.maxRssKib + 96 * 1024, `peak RSS ${run.maxRssKib} KiB, ${bare.maxRssKib} KiB for --version`);
});

test('log --since that is neither a duration nor a time is a usage error', async (t) => {
  const ran = await runCli(['log', '--project', tempProject(t), '--since', 'yesterday'], { env: CLEAN_ENV });
  assert.equal(ran.code, 2);
  assert.match(ran.stderr, /--since/);
});

test('log of a channel that does not exist fails with not_found', async (t) => {
  const ran = await runCli(['log', 'nope', '--project', tempProject(t)], { env: CLEAN_ENV });
  assert.equal(ran.code, 1);
  assert.match(ran.stderr, /\(reason: not_found\)/);
});

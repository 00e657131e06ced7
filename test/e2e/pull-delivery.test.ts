// "Delivered" means the host took the reply: a pull whose reply is cancelled,
// or never reaches stdout because the process died, leaves its mail for the
// next pull. Real server processes over real pipes, killed for real.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, watch } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { claimLock, releaseLock } from '../../src/store/file/lock';
import { NODE_FS } from '../../src/files/fs-port';
import { WAIT_MS, tempProject, type Json, type ServerProcess } from '../helpers/server';
import { channelOf, member, ok, statePath } from './tools-support';
import { seededRandom } from '../helpers/seeded-random';

const CHANNEL = 'review';
const READER = 'sess_reviewer';

function readState(project: string): Json {
  return JSON.parse(readFileSync(statePath(project), 'utf8'));
}

/** Every history record of the project, in file order. */
function historyRecords(project: string): Json[] {
  const dir = join(project, '.opencomms', 'history');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').flatMap(parseRecord));
}

/**
 * One history line, or nothing for a blank or torn one: a process killed in
 * the middle of an append leaves a partial line, the next append starts on a
 * fresh line, and the reader skips the fragment (the record is appended again
 * because the state that held it was never saved).
 */
function parseRecord(line: string): Json[] {
  if (line.trim() === '') return [];
  try {
    return [JSON.parse(line)];
  } catch {
    return [];
  }
}

/** Resolves once `check(state)` holds, re-checked on every change under .opencomms; rejects after `timeoutMs`. */
function waitForState(project: string, what: string, check: (state: Json) => boolean, timeoutMs = WAIT_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(join(project, '.opencomms'));
    const finish = (err?: Error): void => {
      clearTimeout(timer);
      watcher.close();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}`)), timeoutMs);
    const attempt = (): void => {
      let holds = false;
      try {
        holds = check(readState(project));
      } catch {
        // a state file mid-replace is not a verdict; the next event looks again
      }
      if (holds) finish();
    };
    watcher.on('change', attempt);
    watcher.on('error', (err) => finish(err));
    attempt();
  });
}

function statusIn(state: Json, id: string): string | undefined {
  return state.messages?.[id]?.delivery_status;
}

/** Whether none of `ids` is still pending in `state` (a drain took them, or more). */
function isDrained(ids: readonly string[]) {
  return (state: Json): boolean => ids.every((id) => statusIn(state, id) !== 'pending');
}

/** Waits for a child's exit, with a timeout. */
function exitOf(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not exit')), WAIT_MS);
    server.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function kill(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await exitOf(server);
}

/** How many calls met a lock left empty by a killed holder (see okDespiteOrphanedLock). */
let orphanedLocks = 0;

/**
 * A tool call that must succeed, tried again when it answered lock_timeout
 * (nothing was changed). A process killed between creating the lock file
 * and stamping its owner into it leaves a lock no one can judge, which only
 * ages out (LOCK_STALE_MS); the kill storm below can hit that window. That is
 * the lock's own matter; delivery only needs the call to go through later.
 */
async function okDespiteOrphanedLock(server: ServerProcess, name: string, args: Json): Promise<Json> {
  for (let tryNo = 1; ; tryNo += 1) {
    const result = await server.callTool(name, args);
    if (result.ok || result.data?.reason !== 'lock_timeout' || tryNo >= 5) {
      assert.equal(result.ok, true, `${name} was refused: ${JSON.stringify(result).slice(0, 400)}`);
      return result;
    }
    orphanedLocks += 1;
  }
}

async function send(writer: ServerProcess, contents: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const content of contents) ids.push(...(await okDespiteOrphanedLock(writer, 'opencomms_send', { channel: CHANNEL, content })).data.message_ids);
  return ids;
}

/** Pulls until nothing is left; returns every message id received, in order. */
async function pullAll(reader: ServerProcess): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const pulled = await okDespiteOrphanedLock(reader, 'opencomms_pull', { limit: 100 });
    if (pulled.data.message_ids.length === 0) return ids;
    ids.push(...pulled.data.message_ids);
  }
}

test('a cancelled pull leaves its mail pending for the next pull', async (t) => {
  const project = tempProject(t);
  const [writer, reader] = await channelOf(t, project, CHANNEL, ['writer', 'reviewer']);
  const ids = await send(writer!, ['first', 'second']);

  // The test holds the state lock, so the pull is still running (waiting in
  // claimLock) when the host's cancel arrives; both lines come in one write.
  const lock = await claimLock({ port: NODE_FS, lockPath: join(project, '.opencomms', '.state.lock'), host: hostname() });
  reader!.writeRaw([
    JSON.stringify({ jsonrpc: '2.0', id: 'pull-1', method: 'tools/call', params: { name: 'opencomms_pull', arguments: {} } }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'pull-1', reason: 'Esc' } }),
  ].join('\n') + '\n');
  releaseLock(NODE_FS, lock);
  // Replies come in order: the ping's reply means the pull's turn has passed.
  reader!.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
  await reader!.reply('after');
  assert.equal(reader!.replies.some((r) => r.id === 'pull-1'), false, 'a cancelled request is never answered');

  // A stopping server finishes what its dropped reply left to do before it exits.
  await reader!.close();
  const state = readState(project);
  assert.deepEqual(ids.map((id) => statusIn(state, id)), ['pending', 'pending']);
  assert.deepEqual(state.queues[READER], ids, 'back in the queue in send order');
  assert.equal(historyRecords(project).some((r) => ids.includes(r.message_id)), false, 'history does not list it as finished');
  assert.deepEqual(ids.map((id) => state.messages[id].attempts), [0, 0], 'a reply that never went out is not a failed handover');

  const next = await member(t, project, READER);
  assert.deepEqual(await pullAll(next), ids);
});

test('a cancelled pull\'s mail goes to the same server\'s next pull', async (t) => {
  const project = tempProject(t);
  const [writer, reader] = await channelOf(t, project, CHANNEL, ['writer', 'reviewer']);
  const ids = await send(writer!, ['only']);
  reader!.writeRaw([
    JSON.stringify({ jsonrpc: '2.0', id: 'pull-1', method: 'tools/call', params: { name: 'opencomms_pull', arguments: {} } }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'pull-1' } }),
    JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'ping' }),
  ].join('\n') + '\n');
  await reader!.reply('after');
  const pulled = await ok(reader!, 'opencomms_pull', {});
  assert.deepEqual(pulled.data.message_ids, ids);
  // The pull's reply was written, so the mail is delivered by the time the next call looks.
  const history = await ok(reader!, 'opencomms_history', { channel: CHANNEL });
  assert.equal(history.data.messages.find((m: Json) => m.message_id === ids[0]).delivery_status, 'delivered');
});

test('a puller killed after the drain but before its reply was written leaves the mail to the next pull', async (t) => {
  const project = tempProject(t);
  const [writer, reader] = await channelOf(t, project, CHANNEL, ['writer', 'reviewer']);
  // Large enough that the reply cannot fit in the pipe the test stops reading.
  const ids = await send(writer!, ['a', 'b', 'c', 'd'].map((c) => c.repeat(90_000)));
  reader!.child.stdout.pause();
  reader!.send({ jsonrpc: '2.0', id: 'pull-1', method: 'tools/call', params: { name: 'opencomms_pull', arguments: {} } });
  await waitForState(project, 'the pull to drain the mail', isDrained(ids));
  await kill(reader!);
  reader!.child.stdout.resume();
  assert.equal(reader!.replies.some((r) => r.id === 'pull-1'), false, 'the reply never reached the host whole');

  const next = await member(t, project, READER);
  assert.deepEqual(await pullAll(next), ids);
});

test('a server stopped while its pull reply is still unwritten gives the mail back before it exits', async (t) => {
  const project = tempProject(t);
  const [writer, reader] = await channelOf(t, project, CHANNEL, ['writer', 'reviewer']);
  const ids = await send(writer!, ['a', 'b', 'c', 'd'].map((c) => c.repeat(90_000)));
  reader!.child.stdout.pause();
  reader!.send({ jsonrpc: '2.0', id: 'pull-1', method: 'tools/call', params: { name: 'opencomms_pull', arguments: {} } });
  await waitForState(project, 'the pull to drain the mail', isDrained(ids));
  // The host goes away: it closes our stdout without reading it, then stdin.
  reader!.child.stdout.destroy();
  await reader!.close();
  const state = readState(project);
  assert.deepEqual(ids.map((id) => statusIn(state, id)), ids.map(() => 'pending'));
  const next = await member(t, project, READER);
  assert.deepEqual(await pullAll(next), ids);
});

test('mail a killed puller left in flight is recovered and rung for by the next server of that member', async (t) => {
  const project = tempProject(t);
  const [writer, reader] = await channelOf(t, project, CHANNEL, ['writer', 'reviewer']);
  const ids = await send(writer!, ['a', 'b'].map((c) => c.repeat(90_000)));
  reader!.child.stdout.pause();
  reader!.send({ jsonrpc: '2.0', id: 'pull-1', method: 'tools/call', params: { name: 'opencomms_pull', arguments: {} } });
  await waitForState(project, 'the pull to drain the mail', isDrained(ids));
  await kill(reader!);

  // No pull yet: the new server's doorbell finds the dead puller's mail, sweeps it back and rings.
  const next = await member(t, project, READER);
  const bell = await next.waitFor('a bell', () => next.replies.find((r) => r.method === 'notifications/claude/channel'));
  assert.equal(bell.params.meta.count, '2');
  assert.deepEqual(ids.map((id) => statusIn(readState(project), id)), ['pending', 'pending']);
  assert.deepEqual(await pullAll(next), ids);
});

/**
 * The kill points a puller meets, in turn. Each one ends with SIGKILL; the
 * test waits on events (with timeouts), except 'soon', which kills after a
 * short random delay to land wherever the process happens to be.
 */
const KILL_POINTS = ['at_once', 'after_drain', 'first_byte', 'after_reply', 'stuck_write', 'soon'] as const;
type KillPoint = (typeof KILL_POINTS)[number];

// Each of the six kill points comes up four or five times.
const KILLS = 26;
const KILLS_BETWEEN_COLLECTS = 3;

test('pullers killed mid-pull over and over lose no message, and only a reply cut off from its commit is ever repeated', { timeout: 180_000 }, async (t) => {
  const random = seededRandom('pull kill storm', t);
  const project = tempProject(t);
  const [writer] = await channelOf(t, project, CHANNEL, ['writer', 'reviewer'], { rate_limit: 1000, max_agent_streak: 0 });
  const sent: string[] = [];
  // message id → how many replies carried it, split by where the reply came from
  const fromSurvivors = new Map<string, number>();
  const fromKilled = new Map<string, number>();
  const count = (map: Map<string, number>, ids: readonly string[]): void => {
    for (const id of ids) map.set(id, (map.get(id) ?? 0) + 1);
  };
  const collect = async (): Promise<void> => {
    const collector = await member(t, project, READER);
    count(fromSurvivors, await pullAll(collector));
    await collector.close();
  };

  for (let killNo = 0; killNo < KILLS; killNo += 1) {
    const point: KillPoint = KILL_POINTS[killNo % KILL_POINTS.length]!;
    const big = point === 'stuck_write';
    const fresh = await send(writer!, big ? [`${killNo}x`.repeat(30_000), `${killNo}y`.repeat(30_000)] : [`m${killNo}a`, `m${killNo}b`, `m${killNo}c`]);
    sent.push(...fresh);
    const puller = await member(t, project, READER);
    const pullId = `pull-${killNo}`;
    if (big) puller.child.stdout.pause();
    const firstByte = new Promise<void>((resolve) => puller.child.stdout.once('data', () => resolve()));
    puller.send({ jsonrpc: '2.0', id: pullId, method: 'tools/call', params: { name: 'opencomms_pull', arguments: { limit: 100 } } });
    switch (point) {
      case 'at_once':
        break;
      case 'after_drain':
      case 'stuck_write':
        // This round's mail was pending until this pull: any change to it is the pull's drain.
        await waitForState(project, 'the pull to drain', isDrained(fresh.slice(0, 1)));
        break;
      case 'first_byte':
        await Promise.race([firstByte, timeout('the first byte of the reply')]);
        break;
      case 'after_reply':
        await puller.reply(pullId);
        break;
      case 'soon':
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 40)));
        break;
    }
    await kill(puller);
    const reply = puller.replies.find((r) => r.id === pullId);
    if (reply) count(fromKilled, reply.result.structuredContent.data.message_ids);
    if ((killNo + 1) % KILLS_BETWEEN_COLLECTS === 0) await collect();
  }
  await collect();

  const lost = sent.filter((id) => !fromSurvivors.has(id) && !fromKilled.has(id));
  assert.deepEqual(lost, [], 'every message reached some reply');
  // A message may reach the host twice only through a reply written by a
  // puller killed before it could commit (the at-least-once window, PROTOCOL 7.1).
  for (const id of sent) {
    assert.ok((fromSurvivors.get(id) ?? 0) <= 1, `${id} was delivered by two replies that both committed`);
  }
  const state = readState(project);
  assert.deepEqual(Object.keys(state.messages).filter((id) => sent.includes(id)), [], 'nothing left pending or in flight');
  // A process killed between its history append and its state save leaves a
  // repeated line (the log's readers keep one per id); a repeat is the same
  // record, never a second delivery.
  const records = historyRecords(project).filter((r) => sent.includes(r.message_id));
  assert.deepEqual([...new Set(records.map((r) => r.message_id))].sort(), [...sent].sort(), 'every message finished');
  assert.deepEqual([...new Set(records.map((r) => r.delivery_status))], ['delivered']);
  const twice = sent.filter((id) => (fromSurvivors.get(id) ?? 0) + (fromKilled.get(id) ?? 0) > 1);
  t.diagnostic(`${sent.length} messages, ${KILLS} kills, ${twice.length} delivered again after a kill between reply and commit, `
    + `${orphanedLocks} call(s) retried after a lock left unstamped by a kill`);
});

function timeout(what: string): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), WAIT_MS).unref());
}

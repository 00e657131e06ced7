// Spawn-push across real server processes (dist/opencomms.js): a fake
// `claude` / `codex` (test/fixtures/fake-host.cjs) records its argv, so we
// see exactly which process resumed which host session with which mail.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempProject, type Json, type ServerProcess } from '../helpers/server';
import { ok } from './tools-support';
import { until } from '../helpers/wait';

const FAKE_HOST = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'fake-host.cjs');
const WAIT_MS = 15_000;

interface HostRun { event: 'start' | 'end'; argv?: string[]; pid: number; at: number; member?: string | null; code?: number }

/** Resolves when `check` returns a value; re-checked every 25 ms, rejects after WAIT_MS. */
async function waitUntil<T>(what: string, check: () => T | undefined, timeoutMs = WAIT_MS): Promise<T> {
  let found: T | undefined;
  await until(what, () => (found = check()) !== undefined, { timeoutMs, everyMs: 25 });
  return found as T;
}

function runs(logFile: string): HostRun[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as HostRun);
}

const starts = (logFile: string): HostRun[] => runs(logFile).filter((r) => r.event === 'start');

/** A message as it is now: live in state.json, or finished in history/. */
function record(project: string, messageId: string): Json | undefined {
  const dir = join(project, '.opencomms');
  const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
  if (state.messages[messageId]) return state.messages[messageId];
  const historyDir = join(dir, 'history');
  if (!existsSync(historyDir)) return undefined;
  for (const name of readdirSync(historyDir)) {
    const lines = readFileSync(join(historyDir, name), 'utf8').split('\n').filter((l) => l !== '');
    const found = lines.map((l) => JSON.parse(l)).filter((r) => r.message_id === messageId).at(-1);
    if (found) return found;
  }
  return undefined;
}

function delivered(project: string, id: string): Json | undefined {
  const r = record(project, id);
  return r?.delivery_status === 'delivered' ? r : undefined;
}

interface Rig {
  project: string;
  logFile: string;
  exitFile: string;
  gate: string;
  server(memberId: string, host: string, options?: { spawn?: boolean; bin?: 'claude' | 'codex' }): Promise<ServerProcess>;
}

function rig(t: TestContext, block = false): Rig {
  const project = tempProject(t);
  const logFile = join(project, 'host-runs.jsonl');
  const exitFile = join(project, 'host-exit-code');
  const gate = join(project, 'host-release');
  return {
    project, logFile, exitFile, gate,
    async server(memberId, host, options = {}) {
      const env: Record<string, string | undefined> = {
        OPENCOMMS_MEMBER_ID: memberId,
        OPENCOMMS_PROJECT_DIR: undefined,
        OPENCOMMS_PROJECT_ID: undefined,
        OPENCOMMS_NO_SPAWN: options.spawn === false ? '1' : undefined,
        FAKE_HOST_LOG: logFile,
        FAKE_HOST_EXIT_FILE: exitFile,
        FAKE_HOST_BLOCK_UNTIL: block ? gate : undefined,
        // An existing path is used verbatim; the codex override goes through the template parser.
        OPENCOMMS_CLAUDE_BIN: FAKE_HOST,
        OPENCOMMS_CODEX_BIN: `"${process.execPath}" "${FAKE_HOST}"`,
      };
      const server = startServer(t, { project, args: ['--project', project, '--host', host], env });
      await server.initialize();
      return server;
    },
  };
}

async function spawnChannel(r: Rig, bobHost = 'claude-code'): Promise<{ alice: ServerProcess; bob: ServerProcess }> {
  const alice = await r.server('sess_alice', 'mcp');
  await ok(alice, 'opencomms_create', { channel: 'review', role: 'author', role_prompt: 'Write.' });
  const bob = await r.server('sess_bob', bobHost, { spawn: false });
  await ok(bob, 'opencomms_join', { channel: 'review', role: 'reviewer', role_prompt: 'Review.', spawn_push: true, host_session_id: 'hs-bob-42' });
  return { alice, bob };
}

async function send(server: ServerProcess, content: string): Promise<string> {
  const result = await ok(server, 'opencomms_send', { channel: 'review', content, to: 'reviewer' });
  return result.data.message_ids[0];
}

test('a spawn_push member on claude-code is resumed with its mail as the last argument, and the mail is committed', async (t) => {
  const r = rig(t);
  const { alice } = await spawnChannel(r);
  const id = await send(alice, 'please look at PR 7');
  const [run] = await waitUntil('the fake claude to run', () => (starts(r.logFile).length > 0 ? starts(r.logFile) : undefined));
  assert.deepEqual(run!.argv!.slice(0, 5), ['-p', '--allowedTools', 'mcp__opencomms,mcp__plugin_opencomms_opencomms', '--resume', 'hs-bob-42']);
  assert.equal(run!.argv!.length, 6);
  assert.match(run!.argv![5]!, /please look at PR 7/);
  assert.match(run!.argv![5]!, /UNTRUSTED_PEER_MESSAGE/);
  assert.equal(run!.member, null, 'the spawning server does not hand its identity to the host');
  const done = await waitUntil('the commit', () => delivered(r.project, id));
  assert.equal(done.delivery_method, 'spawn_push');
  assert.equal(starts(r.logFile).length, 1);
});

test('a spawn_push member on codex is resumed with exec resume through the template override', async (t) => {
  const r = rig(t);
  const { alice } = await spawnChannel(r, 'codex');
  const id = await send(alice, 'codex, over to you');
  await waitUntil('the commit', () => delivered(r.project, id));
  const [run] = starts(r.logFile);
  assert.deepEqual(run!.argv!.slice(0, 3), ['exec', 'resume', 'hs-bob-42']);
  assert.match(run!.argv![3]!, /codex, over to you/);
});

test('a failing host CLI requeues the mail with a scoped error, and the retry delivers it once the host works', async (t) => {
  const r = rig(t);
  writeFileSync(r.exitFile, '3');
  const { alice, bob } = await spawnChannel(r);
  const id = await send(alice, 'try again later');
  await waitUntil('the requeue', () => {
    const e = record(r.project, id);
    return e?.delivery_status === 'pending' && e.attempts === 1 ? e : undefined;
  });
  const status = await ok(bob, 'opencomms_status');
  const error = (status.data.errors as Json[]).find((e) => e.member_id === 'sess_bob');
  assert.match(error?.message ?? '', /host CLI failed \(exit code 3\)/);
  assert.doesNotMatch(error?.message ?? '', /try again later|hs-bob-42/);
  writeFileSync(r.exitFile, '0');
  const done = await waitUntil('the retry to deliver', () => delivered(r.project, id));
  assert.equal(done.attempts, 2);
  assert.equal(starts(r.logFile).length, 2);
});

test('two servers racing to deliver to one member resume it one at a time, each message exactly once', async (t) => {
  const r = rig(t, true);
  const { alice } = await spawnChannel(r);
  const carol = await r.server('sess_carol', 'mcp');
  await ok(carol, 'opencomms_join', { channel: 'review', role: 'tester', role_prompt: 'Test.' });
  const ids = await Promise.all([send(alice, 'from alice'), send(carol, 'from carol')]);
  await waitUntil('a first resume', () => (starts(r.logFile).length > 0 ? true : undefined));
  // This send's trigger has run by the time it answers: it must find the lease and stand back.
  ids.push(await send(carol, 'carol again'));
  ids.push(await send(alice, 'alice again'));
  assert.equal(starts(r.logFile).length, 1, 'no second resume while the first runs');
  writeFileSync(r.gate, '');
  for (const id of ids) await waitUntil(`delivery of ${id}`, () => delivered(r.project, id));
  const all = runs(r.logFile);
  for (const id of ids) {
    assert.equal(all.filter((run) => run.event === 'start' && run.argv!.at(-1)!.includes(id)).length, 1, `${id} resumed once`);
  }
  // No two resumes of the session overlapped: every start comes after the previous end.
  let open = 0;
  for (const run of all.sort((a, b) => a.at - b.at)) {
    open += run.event === 'start' ? 1 : -1;
    assert.ok(open <= 1, 'two resumes ran at once');
  }
});

test('mail held by a killed delivering server is swept and re-delivered by another server', async (t) => {
  const r = rig(t, true);
  const { alice } = await spawnChannel(r);
  const first = await send(alice, 'in flight when alice dies');
  await waitUntil('alice to start the resume', () => (starts(r.logFile).length === 1 ? true : undefined));
  assert.equal(record(r.project, first)?.delivery_status, 'in_flight');
  // carol starts only now, so the delivery in flight can only be alice's.
  const carol = await r.server('sess_carol', 'mcp');
  await ok(carol, 'opencomms_join', { channel: 'review', role: 'tester', role_prompt: 'Test.' });
  alice.child.kill('SIGKILL');
  await alice.exited;
  const second = await send(carol, 'sent after the crash');
  const rerun = await waitUntil('carol to resume again', () => starts(r.logFile)[1]);
  assert.ok(rerun.argv!.at(-1)!.indexOf(first) < rerun.argv!.at(-1)!.indexOf(second), 'the swept message keeps its place ahead');
  writeFileSync(r.gate, '');
  const done = await waitUntil('the re-delivery', () => delivered(r.project, first));
  assert.equal(done.attempts, 2, 'the abandoned attempt counts');
  await waitUntil('the second message', () => delivered(r.project, second));
  assert.equal(starts(r.logFile).filter((run) => run.argv!.at(-1)!.includes(second)).length, 1);
});

test('the watcher of another server delivers spawn_push mail when the sender cannot spawn', async (t) => {
  const r = rig(t);
  const alice = await r.server('sess_alice', 'mcp', { spawn: false });
  await ok(alice, 'opencomms_create', { channel: 'review', role: 'author', role_prompt: 'Write.' });
  const bob = await r.server('sess_bob', 'claude-code', { spawn: false });
  await ok(bob, 'opencomms_join', { channel: 'review', role: 'reviewer', role_prompt: 'Review.', spawn_push: true, host_session_id: 'hs-bob-42' });
  // A third process that can spawn, and is not part of the conversation at all.
  const carol = await r.server('sess_carol', 'claude-code');
  await ok(carol, 'opencomms_status');
  const id = await send(alice, 'delivered by a watcher');
  const done = await waitUntil('the commit', () => delivered(r.project, id));
  assert.equal(done.delivery_method, 'spawn_push');
  const [run] = starts(r.logFile);
  assert.match(run!.argv!.at(-1)!, /delivered by a watcher/);
});

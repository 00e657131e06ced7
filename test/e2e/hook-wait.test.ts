// `node dist/opencomms.js hook --wait` as Claude Code runs it (an asyncRewake
// Stop hook): real processes on one project. MCP servers create, join and
// send; the waiter must wake with exit 2 on new mail, stay quiet otherwise,
// and never run twice for the same member.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { test, type TestContext } from 'node:test';
import { openStore } from '../../src/store/index';
import { DIST, runCli, tempProject } from '../helpers/server';
import { claudeEvent } from '../hooks/support';
import { bounded, leaseOf, untilState } from '../hooks/wait-support';
import { create, join, member, ok } from './tools-support';

const ALICE = 'sess_alice';
const STOP = JSON.stringify(claudeEvent('Stop', 'host-session-a'));

function hookEnv(memberId: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENCOMMS_MEMBER_ID: memberId };
  delete env.OPENCOMMS_PROJECT_DIR;
  return env;
}

interface Waiter {
  child: ChildProcessWithoutNullStreams;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Starts `hook --wait` for `memberId`; killed after the test if it is still running. */
function startWaiter(t: TestContext, project: string, memberId: string, extraArgs: string[] = []): Waiter {
  const child = spawn(process.execPath, [DIST, 'hook', '--wait', '--project', project, ...extraArgs], { env: hookEnv(memberId) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  child.stdin.end(STOP);
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, done };
}

/** bob (writer) creates "review", alice joins; alice's server then closes, so nothing but the waiter watches her mail. */
async function setUp(t: TestContext) {
  const project = tempProject(t);
  const bob = await member(t, project, 'sess_bob');
  await create(bob, 'review', 'writer');
  const alice = await member(t, project, ALICE);
  await join(alice, 'review', 'reviewer');
  await alice.close();
  return { project, bob };
}

const leaseHeld = (project: string, pid?: number) =>
  untilState(project, `alice's waiter lease${pid === undefined ? '' : ` held by ${pid}`}`, (s) => {
    const lease = leaseOf(s, ALICE);
    return lease !== undefined && (pid === undefined || lease.pid === pid);
  });

test('mail sent by another process wakes the waiter: exit 2, a one-line notice without the content, the mail left pending', async (t) => {
  const { project, bob } = await setUp(t);
  const waiter = startWaiter(t, project, ALICE);
  await leaseHeld(project, waiter.child.pid);
  const sent = await ok(bob, 'opencomms_send', { channel: 'review', content: 'TOP-SECRET review notes' });
  const run = await bounded(waiter.done, 'the waiter');
  assert.equal(run.code, 2);
  assert.equal(run.stdout, '{}\n');
  assert.doesNotMatch(run.stderr, /TOP-SECRET/);
  assert.match(run.stderr, /^OpenComms: 1 new message waiting for you \(1 in channel "review" from writer \(sess_bob\)\); call opencomms_pull to read it\.\n$/);
  const state = openStore({ projectDir: project }).snapshot();
  assert.equal(state.messages[sent.data.message_ids[0]]!.delivery_status, 'pending', 'never drained');
  assert.equal(leaseOf(state, ALICE), undefined, 'the lease is released after a normal exit');
});

test('--timeout 300ms with no mail: exit 0, {} and nothing on stderr, the lease released', async (t) => {
  const { project } = await setUp(t);
  const run = await bounded(startWaiter(t, project, ALICE, ['--timeout', '300ms']).done, 'the waiter');
  assert.equal(run.code, 0);
  assert.equal(run.stdout, '{}\n');
  assert.equal(run.stderr, '');
  assert.equal(leaseOf(openStore({ projectDir: project }).snapshot(), ALICE), undefined);
});

test('a SessionEnd hook run marks the member stale: the waiter exits 0', async (t) => {
  const { project } = await setUp(t);
  const waiter = startWaiter(t, project, ALICE);
  await leaseHeld(project, waiter.child.pid);
  const end = await runCli(['hook', '--project', project], {
    input: JSON.stringify(claudeEvent('SessionEnd', 'host-session-a', { reason: 'exit' })),
    env: { OPENCOMMS_MEMBER_ID: ALICE, OPENCOMMS_PROJECT_DIR: undefined },
  });
  assert.equal(end.code, 0);
  const run = await bounded(waiter.done, 'the waiter');
  assert.equal(run.code, 0);
  assert.equal(run.stderr, '');
  const state = openStore({ projectDir: project }).snapshot();
  assert.equal(state.channels.review!.members.find((m) => m.session_id === ALICE)!.stale, true);
  assert.equal(leaseOf(state, ALICE), undefined);
});

test('one waiter per member: a later turn\'s waiter takes the lease and the earlier one ends quietly; after a SIGKILL the next takes the lease and wakes', async (t) => {
  const { project, bob } = await setUp(t);
  const first = startWaiter(t, project, ALICE);
  await leaseHeld(project, first.child.pid);

  const second = startWaiter(t, project, ALICE);
  await leaseHeld(project, second.child.pid);
  const superseded = await bounded(first.done, 'the superseded first waiter');
  assert.equal(superseded.code, 0);
  assert.equal(superseded.stdout, '{}\n');
  assert.equal(superseded.stderr, '');
  assert.equal(second.child.exitCode, null, 'the second still waits');

  second.child.kill('SIGKILL');
  const killed = await bounded(second.done, 'the second waiter');
  assert.equal(killed.signal, 'SIGKILL');
  assert.equal(leaseOf(openStore({ projectDir: project }).snapshot(), ALICE)?.pid, second.child.pid, 'a SIGKILLed waiter leaves its lease behind');

  const third = startWaiter(t, project, ALICE);
  await leaseHeld(project, third.child.pid);
  await ok(bob, 'opencomms_send', { channel: 'review', content: 'after the takeover' });
  const run = await bounded(third.done, 'the third waiter');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /call opencomms_pull/);
  assert.equal(leaseOf(openStore({ projectDir: project }).snapshot(), ALICE), undefined);
});
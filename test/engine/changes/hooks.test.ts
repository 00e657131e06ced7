// The hooks room's changes (engine/changes/hooks.ts, hooks-wait.ts), applied
// through the change table with their arguments round-tripped through JSON as
// a waiting change's are: the Stop waiter's lease is taken, renewed and
// released as hooks/wait.ts had it, a session's end marks its member stale
// only while the state still says so, collision and shell-write notices go
// out, and malformed arguments (another process's file) change nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changeNamed, type ChangeArgs, type ChangeName } from '../../../src/engine/changes/table';
import type { ChangeTx } from '../../../src/engine/archive-types';
import {
  bindHostSession, hasSessionEnded, reservePaths, sendMessage, serializeState, type EngineCtx, type HookSession, type PresenceClaim, type State, type ToolResult,
} from '../../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf } from '../helpers';

const NO_TX: ChangeTx = { putArchive: () => undefined, deleteArchive: () => undefined };
const HERE = 'box-a';
const LEASE_MS = 300_000;
const RENEW_MS = 120_000;

function apply<K extends ChangeName>(name: K, args: ChangeArgs<K>, state: State, ctx: EngineCtx): ToolResult {
  const change = changeNamed(name);
  assert.ok(change, `the table has a change called ${name}`);
  return change(state, JSON.parse(JSON.stringify(args)) as unknown, ctx, NO_TX);
}

/** A ctx whose process check says pids in `dead` are gone on HERE; another machine's it cannot tell. */
function ctxWith(dead: number[] = []) {
  const ctx = fakeCtx();
  ctx.isProcessAlive = (proc) => (proc.machine === HERE ? !dead.includes(proc.pid) : undefined);
  return ctx;
}

function claimOf(pid: number, machine = HERE): PresenceClaim {
  return { pid, machine, start: null, kind: 'waiter' };
}

function session(sessionId: string): HookSession {
  return { refs: [], session_id: sessionId, hosts: ['generic'], lookup_hosts: ['generic'] };
}

function waiter(pid: number, token: string, machine = HERE) {
  return { member: 'b', claim: claimOf(pid, machine), token, session: session('sid-b'), found_by_session: false };
}

function start(state: State, ctx: EngineCtx, w: ReturnType<typeof waiter>): unknown {
  return mustOk(apply('hook_wait_start', { ...w, lease_ms: LEASE_MS, renew_ms: RENEW_MS }, state, ctx)).data;
}

function mailFor(state: State, ctx: EngineCtx, to: string): void {
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'hello', to }, ctx));
}

test('a waiter takes the lease and is present; a later waiter here takes it over, one elsewhere stands down while the holder runs', () => {
  const ctx = ctxWith();
  const state = channelWith(ctx, ['a', 'b']);
  assert.deepEqual(start(state, ctx, waiter(11, 't1')), { start: 'waiting' });
  assert.deepEqual(state.wait_leases!.b, { pid: 11, host: HERE, token: 't1', until: ctx.now() + LEASE_MS });
  assert.deepEqual(state.presence!.b!.processes.map((p) => [p.pid, p.kind]), [[11, 'waiter']]);
  assert.deepEqual(start(state, ctx, waiter(22, 't2', 'box-b')), { start: 'quiet' }, 'a rival on another machine cannot tell a live holder to stop');
  assert.equal(state.wait_leases!.b!.token, 't1');
  assert.deepEqual(start(state, ctx, waiter(12, 't3')), { start: 'waiting' }, 'this turn\'s waiter here covers the member');
  assert.equal(state.wait_leases!.b!.token, 't3');
});

test('a waiter wakes at once for waiting mail unless a live holder has it; a dead holder\'s lease binds nobody', () => {
  const ctx = ctxWith([11]);
  const state = channelWith(ctx, ['a', 'b']);
  mailFor(state, ctx, 'b');
  const before = serializeState(state);
  const woken = start(state, ctx, waiter(13, 't1')) as { start: string; notice: string };
  assert.equal(woken.start, 'wake');
  assert.match(woken.notice, /1 new message waiting for you .*opencomms_pull/);
  assert.equal(serializeState(state), before, 'waking needs no lease: nothing written');
  state.wait_leases = { b: { pid: 14, host: HERE, token: 'live', until: ctx.now() + LEASE_MS } };
  assert.deepEqual(start(state, ctx, waiter(15, 't2')), { start: 'quiet' }, 'the live holder wakes the agent');
  state.wait_leases = { b: { pid: 11, host: HERE, token: 'dead', until: ctx.now() + LEASE_MS } };
  assert.equal((start(state, ctx, waiter(15, 't3')) as { start: string }).start, 'wake');
});

test('a waiter found by its session stands down once the session is another member\'s; one named by the environment does not look', () => {
  const ctx = ctxWith();
  const state = channelWith(ctx, ['a', 'b']);
  bindHostSession(state, 'a', 'generic', 'sid-b');
  assert.deepEqual(start(state, ctx, { ...waiter(11, 't1'), found_by_session: true }), { start: 'quiet' });
  assert.equal(state.wait_leases, undefined);
  assert.deepEqual(start(state, ctx, waiter(11, 't2')), { start: 'waiting' });
});

test('renewal moves the lease while it is this waiter\'s and is refused once it was lost; release leaves, and looks for mail only when asked', () => {
  const ctx = ctxWith();
  const state = channelWith(ctx, ['a', 'b']);
  start(state, ctx, waiter(11, 't1'));
  ctx.advance(RENEW_MS);
  mustOk(apply('hook_wait_renew', { member: 'b', claim: claimOf(11), token: 't1', lease_ms: LEASE_MS, renew_ms: RENEW_MS }, state, ctx));
  assert.equal(state.wait_leases!.b!.until, ctx.now() + LEASE_MS);
  assert.equal(state.presence!.b!.processes[0]!.renewed_at, ctx.now());
  const lost = apply('hook_wait_renew', { member: 'b', claim: claimOf(11), token: 'other', lease_ms: LEASE_MS, renew_ms: RENEW_MS }, state, ctx);
  assert.deepEqual([lost.ok, lost.message], [false, 'lease lost']);
  mailFor(state, ctx, 'b');
  const quiet = mustOk(apply('hook_wait_release', { ...waiter(11, 't1'), look: false }, state, ctx));
  assert.deepEqual(quiet.data, {});
  assert.equal(state.wait_leases?.b, undefined);
  assert.deepEqual(state.presence!.b!.processes, []);
  // A waiter stopped by mail or its deadline: the mail that came while it held the lease.
  state.wait_leases = { b: { pid: 12, host: HERE, token: 't2', until: ctx.now() + LEASE_MS } };
  const looked = mustOk(apply('hook_wait_release', { ...waiter(12, 't2'), look: true }, state, ctx));
  assert.match(String(looked.data!.notice), /1 new message waiting for you/);
  assert.equal(state.wait_leases?.b, undefined);
});

test('a session\'s end marks its member stale, unless its session is another member\'s now, a newer one took over, or spawn-resume reaches it', () => {
  const ctx = ctxWith();
  const state = channelWith(ctx, ['a', 'b']);
  bindHostSession(state, 'b', 'generic', 'sid-new');
  const ended = (member: string, sid: string, byEnv = false): string => apply('hook_end_session', { member, session: session(sid), found_by_session: !byEnv }, state, ctx).message;
  assert.equal(ended('b', 'sid-old', true), 'moved', 'bound elsewhere on this host');
  assert.equal(ended('a', 'sid-new'), 'moved', 'the session is b\'s');
  assert.equal(hasSessionEnded(state, 'a') || hasSessionEnded(state, 'b'), false);
  const member = Object.values(state.channels)[0]!.members.find((m) => m.session_id === 'b')!;
  member.delivery_mode = 'spawn_push';
  assert.equal(ended('b', 'sid-new'), 'resumable');
  member.delivery_mode = 'pull';
  assert.equal(ended('b', 'sid-new'), 'stale');
  assert.equal(hasSessionEnded(state, 'b'), true);
});

test('collision notices go to both editors once; a shell write tells the holder, naming a writer with no member by its host', () => {
  const ctx = ctxWith();
  const state = channelWith(ctx, ['a', 'b']);
  const edits = [{ file: 'src/x.ts', member_id: 'b', at: ctx.now() - 1_000 }];
  const noted = mustOk(apply('hook_note_collisions', { member: 'a', files: ['src/x.ts'], edits }, state, ctx));
  assert.deepEqual(noted.data, { queued: 2 });
  assert.deepEqual(mustOk(apply('hook_note_collisions', { member: 'a', files: ['src/x.ts'], edits }, state, ctx)).data, { queued: 0 });
  mustOk(reservePaths(state, { channel: 'dev', session_id: 'b', paths: ['src/held.ts'], exclusive: true, project_dir: '/repo' }, ctx));
  const told = mustOk(apply('hook_shell_writes', { writer: { member: null, host: 'codex' }, changed: [{ file: 'src/held.ts', holders: [{ holder: 'b', channel: 'dev' }] }] }, state, ctx));
  assert.deepEqual(told.data, { told: 1 });
  const notice = Object.values(state.messages).filter((e) => e.recipient_session_id === 'b' && e.content.includes('src/held.ts'));
  assert.equal(notice.length, 1);
  assert.match(notice[0]!.content, /a codex session with no OpenComms member yet/);
  const errors = state.errors.length;
  mustOk(apply('hook_note_problem', { message: 'hook: bad input; answered {}' }, state, ctx));
  assert.deepEqual(state.errors.slice(errors).map((e) => e.message), ['hook: bad input; answered {}']);
});

test('malformed arguments are refused as invalid_argument and leave the state as it was', () => {
  const ctx = ctxWith();
  const state = channelWith(ctx, ['a', 'b']);
  start(state, ctx, waiter(11, 't1'));
  const before = serializeState(state);
  const w = waiter(12, 't2');
  const bad: Array<[ChangeName, unknown]> = [
    ['hook_note_problem', { message: 3 }],
    ['hook_note_collisions', { member: 'a', files: 'src/x.ts', edits: [] }],
    ['hook_note_collisions', { member: 'a', files: [], edits: [{ file: 'x', member_id: 'b' }] }],
    ['hook_shell_writes', { writer: { host: 'codex' }, changed: [] }],
    ['hook_shell_writes', { writer: { member: null, host: 'codex' }, changed: [{ file: 'x', holders: [{ holder: 'b' }] }] }],
    ['hook_end_session', { member: 'b', session: { refs: [], session_id: 5, hosts: [], lookup_hosts: [] }, found_by_session: true }],
    ['hook_end_session', { member: 'b', session: session('s') }],
    ['hook_wait_start', { ...w, claim: { ...w.claim, kind: 'server' }, lease_ms: LEASE_MS, renew_ms: RENEW_MS }],
    ['hook_wait_start', { ...w, lease_ms: 'long', renew_ms: RENEW_MS }],
    ['hook_wait_start', { ...w, session: { ...w.session, refs: [{ kind: 'pid', host: 'x', id: '1' }] }, lease_ms: LEASE_MS, renew_ms: RENEW_MS }],
    ['hook_wait_renew', { member: 'b', claim: claimOf(11), lease_ms: LEASE_MS, renew_ms: RENEW_MS }],
    ['hook_wait_release', { ...waiter(11, 't1'), look: 'yes' }],
    ['hook_wait_release', null],
    ...(['hook_note_problem', 'hook_note_collisions', 'hook_shell_writes', 'hook_end_session', 'hook_wait_start', 'hook_wait_renew'] as const).map((n): [ChangeName, unknown] => [n, null]),
  ];
  for (const [name, args] of bad) {
    const result = changeNamed(name)!(state, args, ctx, NO_TX);
    assert.equal(reasonOf(result), 'invalid_argument', `${name} ${JSON.stringify(args)}`);
  }
  assert.equal(serializeState(state), before);
});

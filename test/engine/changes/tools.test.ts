// The tools room's changes (engine/changes/tools*.ts), applied through the
// change table with their arguments round-tripped through JSON as a waiting
// change's are: each member change checks its arguments, the member and its
// membership before it acts; archives are written and deleted through tx; a
// pull and a session link judge processes by the applying process's check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changeNamed, type ChangeArgs, type ChangeName } from '../../../src/engine/changes/table';
import type { ChangeTx, SessionArchive } from '../../../src/engine/archive-types';
import { findChannel, sendMessage, serializeState, type EngineCtx, type PresenceProcess, type State, type ToolResult } from '../../../src/engine/index';
import { channelWith, fakeCtx, mustOk, PROJECT, reasonOf, WORKTREE } from '../helpers';

const NO_TX: ChangeTx = { putArchive: () => undefined, deleteArchive: () => undefined };

function apply<K extends ChangeName>(name: K, args: ChangeArgs<K>, state: State, ctx: EngineCtx, tx: ChangeTx = NO_TX): ToolResult {
  const change = changeNamed(name);
  assert.ok(change, `the table has a change called ${name}`);
  return change(state, JSON.parse(JSON.stringify(args)) as unknown, ctx, tx);
}

/** A ctx whose process check says of machine `m` that only `running` pids run (other machines: not known). */
function judging(ctx: EngineCtx, running: number[]): EngineCtx {
  return { ...ctx, isProcessAlive: (p: PresenceProcess) => (p.machine === 'm' ? running.includes(p.pid) : undefined) };
}

test('a member change refuses malformed arguments, a person, and a caller who is no live member, before it acts', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const before = serializeState(state);
  const refused: Array<[ChangeName, unknown, string]> = [
    ['channel_update_role', { member: 5, channel: 'dev', role_prompt: 'x' }, 'invalid_argument'],
    ['channel_update_role', { member: 'a', channel: 'dev', role_prompt: 7 }, 'invalid_argument'],
    ['channel_update_role', { member: 'person-ada', channel: 'dev', role_prompt: 'x' }, 'invalid_argument'],
    ['channel_update_role', { member: 'c', channel: 'dev', role_prompt: 'x' }, 'not_member'],
    ['channel_kick', { member: 'a', channel: 'nowhere', target_role: 'R1' }, 'channel_not_found'],
    ['channel_timer', { member: 'a', channel: 'dev', action: 'start', limit_ms: 'soon' }, 'invalid_argument'],
    ['paths_reserve', { member: 'a', channel: 'dev', paths: 'src/a.ts', project_dir: '/repo' }, 'invalid_argument'],
    ['paths_reserve', { member: 'c', channel: 'dev', paths: ['src/a.ts'], project_dir: '/repo' }, 'not_member'],
    ['mail_pull', { member: 'a', pid: '1', host: 'm', lease_ms: 1 }, 'invalid_argument'],
    // Without a channel the member must be in some channel.
    ['mail_pull', { member: 'c', pid: 1, host: 'm', lease_ms: 1 }, 'not_member'],
    ['task_action', { member: 'a', action: 'steal', project_dir: '/repo' }, 'invalid_argument'],
    ['channel_join', { member: 'c', channel: 'dev', role: 'R9', role_prompt: 'x', project_id: PROJECT, worktree: WORKTREE, stale_policy: 'none' }, 'invalid_argument'],
    ['session_save', { member: 'c', channel: 'dev' }, 'not_member'],
    ['session_delete', { member: 'c', channel: 'dev', confirm: true, archive: null }, 'not_member'],
    ['session_delete', { member: 'a', channel: 'old', confirm: true, archive: { schema: 2 } }, 'invalid_argument'],
    ['session_resume', { member: 'a', archive: null, project_id: PROJECT, worktree: WORKTREE }, 'invalid_argument'],
    ['presence_record', { ids: ['a'], claim: { pid: 1, machine: 'm', start: null, kind: 'ghost' }, renew_ms: 1 }, 'invalid_argument'],
    ['host_session_link', { refs: [{ kind: 'sid' }], pins: [], host: 'claude-code' }, 'invalid_argument'],
    ['speaker_claim', { member_id: 'a', pid: 1, host: 'm', token: 5 }, 'invalid_argument'],
  ];
  for (const [name, args, reason] of refused) {
    const result = changeNamed(name)!(state, args, ctx, NO_TX);
    assert.equal(reasonOf(result), reason, `${name} ${JSON.stringify(args)}: ${result.message}`);
  }
  assert.equal(serializeState(state), before);
});

test('a member change acts for the member its arguments name, as the engine operation does', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const dev = (): NonNullable<ReturnType<typeof findChannel>> => findChannel(state, 'dev')!;
  mustOk(apply('channel_update_role', { member: 'b', channel: 'dev', role_prompt: 'reviews' }, state, ctx));
  assert.equal(dev().members.find((m) => m.session_id === 'b')!.role_prompt, 'reviews');
  mustOk(apply('channel_pause', { member: 'a', channel: 'dev' }, state, ctx));
  assert.equal(dev().paused, true);
  mustOk(apply('channel_resume', { member: 'a', channel: 'dev' }, state, ctx));
  mustOk(apply('paths_reserve', { member: 'b', channel: 'dev', paths: ['src/a.ts'], project_dir: '/repo' }, state, ctx));
  assert.deepEqual((dev().reservations ?? []).map((r) => [r.member_id, r.path]), [['b', 'src/a.ts']]);
  mustOk(apply('paths_release', { member: 'b', channel: 'dev', project_dir: '/repo' }, state, ctx));
  assert.deepEqual(dev().reservations ?? [], []);
  mustOk(apply('channel_join', { member: 'c', channel: 'dev', role: 'R2', role_prompt: 'x', project_id: PROJECT, worktree: WORKTREE, delivery_mode: 'pull' }, state, ctx));
  mustOk(apply('channel_kick', { member: 'a', channel: 'dev', target_role: 'R2' }, state, ctx));
  const left = apply('channel_disconnect', { member: 'b', channel: 'dev' }, state, ctx);
  assert.equal(mustOk(left).data?.channel_removed, false);
  assert.deepEqual(dev().members.map((m) => m.session_id), ['a']);
  mustOk(apply('channel_create', { member: 'c', channel: 'ops', role: 'lead', role_prompt: 'x', project_id: PROJECT, worktree: WORKTREE, max_members: 3 }, state, ctx));
  assert.equal(findChannel(state, 'ops')!.max_members, 3);
  const added = mustOk(apply('task_action', { member: 'c', action: 'add', title: 'write docs', paths: ['docs/**'], project_dir: '/repo' }, state, ctx));
  // The title a member wrote comes back framed as peer data.
  assert.match(String((added.data!.task as { title: string }).title), /write docs/);
  assert.notEqual((added.data!.task as { title: string }).title, 'write docs');
});

test('save writes the archive in the same change that closes the channel; resume reopens it; delete removes an archive through tx', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const put: SessionArchive[] = [];
  const deleted: string[] = [];
  const tx: ChangeTx = { putArchive: (archive) => put.push(archive), deleteArchive: (id) => deleted.push(id) };
  const saved = mustOk(apply('session_save', { member: 'a', channel: 'dev', summary: 'done' }, state, ctx, tx));
  assert.deepEqual(put.map((a) => a.channel_id), [saved.data!.archive_id]);
  assert.equal(findChannel(state, 'dev'), undefined);
  const archive = put[0]!;
  assert.equal(reasonOf(apply('session_resume', { member: 'z', archive, project_id: PROJECT, worktree: WORKTREE }, state, ctx)), 'not_archived_member');
  mustOk(apply('session_resume', { member: 'b', archive, new_name: 'dev-again', project_id: PROJECT, worktree: WORKTREE }, state, ctx));
  assert.ok(findChannel(state, 'dev-again'));
  assert.equal(reasonOf(apply('session_delete', { member: 'z', channel: 'dev', confirm: true, archive }, state, ctx, tx)), 'not_archived_member');
  assert.deepEqual(deleted, []);
  const gone = mustOk(apply('session_delete', { member: 'a', channel: 'dev', confirm: true, archive }, state, ctx, tx));
  assert.equal(gone.data!.phase, 'archive');
  assert.deepEqual(deleted, [archive.channel_id]);
  // A live channel is deleted only by a live member of it (a resumed channel starts empty).
  assert.equal(reasonOf(apply('session_delete', { member: 'b', channel: 'dev-again', confirm: true, archive: null }, state, ctx, tx)), 'not_member');
  channelWith(ctx, ['b'], 'ops', state);
  const live = mustOk(apply('session_delete', { member: 'b', channel: 'ops', confirm: true, archive: null }, state, ctx, tx));
  assert.deepEqual([live.data!.phase, findChannel(state, 'ops')], ['live', undefined]);
});

test('a pull holds the mail for the pulling process, and takes back mail another process held only once that process is judged gone', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const sent = mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'for b', to: 'b' }, ctx));
  const id = (sent.data!.message_ids as string[])[0]!;
  const first = mustOk(apply('mail_pull', { member: 'b', channel: 'dev', pid: 42, host: 'm', lease_ms: 60_000 }, state, judging(ctx, [42])));
  const owner = { pid: 42, host: 'm', lease_until: ctx.now() + 60_000 };
  assert.deepEqual([first.data!.message_ids, first.data!.owner], [[id], owner]);
  assert.deepEqual([state.messages[id]!.delivery_status, state.messages[id]!.delivery_owner], ['in_flight', owner]);
  // Pid 42 still runs: its mail stays with it.
  assert.deepEqual(mustOk(apply('mail_pull', { member: 'b', pid: 43, host: 'm', lease_ms: 60_000 }, state, judging(ctx, [42, 43]))).data!.message_ids, []);
  const again = mustOk(apply('mail_pull', { member: 'b', pid: 43, host: 'm', lease_ms: 60_000 }, state, judging(ctx, [43])));
  assert.deepEqual(again.data!.message_ids, [id]);
  assert.equal(state.messages[id]!.delivery_owner!.pid, 43);
});

test('a session link adopts a pin only when no running process speaks as it, and answers the member already linked', () => {
  const ctx = fakeCtx();
  const refs = [{ kind: 'sid' as const, host: 'claude-code', id: 'thread-1' }];
  const withSpeaker = (): State => {
    const state = channelWith(ctx, ['a']);
    state.speaker_leases = { sess_pinned: { pid: 7, host: 'm', token: 'tok', until: ctx.now() + 60_000 } };
    return state;
  };
  const spoken = withSpeaker();
  const minted = mustOk(apply('host_session_link', { refs, pins: ['sess_pinned'], host: 'claude-code' }, spoken, judging(ctx, [7])));
  assert.equal(minted.data!.how, 'minted');
  assert.notEqual(minted.data!.member_id, 'sess_pinned');
  const same = apply('host_session_link', { refs, pins: ['sess_pinned'], host: 'claude-code' }, spoken, judging(ctx, [7]));
  assert.deepEqual([same.ok, same.data!.member_id], [false, minted.data!.member_id]);
  const adopted = mustOk(apply('host_session_link', { refs, pins: ['sess_pinned'], host: 'claude-code' }, withSpeaker(), judging(ctx, [])));
  assert.deepEqual([adopted.data!.how, adopted.data!.member_id], ['adopted', 'sess_pinned']);
});

test('a speaker claim makes its token on the first claim and renews nothing while the lease is fresh; presence records and leaves', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  const first = mustOk(apply('speaker_claim', { member_id: 'a', pid: 9, host: 'm', token: null }, state, judging(ctx, [9])));
  const token = first.data!.token;
  assert.equal(typeof token, 'string');
  assert.equal(state.speaker_leases!.a!.token, token);
  const fresh = apply('speaker_claim', { member_id: 'a', pid: 9, host: 'm', token: String(token) }, state, judging(ctx, [9]));
  assert.deepEqual([fresh.ok, fresh.data!.token], [false, token]);
  // Another process may not take a running speaker's member.
  assert.equal(apply('speaker_claim', { member_id: 'a', pid: 10, host: 'm', token: 'other' }, state, judging(ctx, [9, 10])).ok, false);
  const claim = { pid: 9, machine: 'm', start: null, kind: 'server' as const };
  mustOk(apply('presence_record', { ids: ['a'], claim, renew_ms: 60_000 }, state, ctx));
  assert.equal(apply('presence_record', { ids: ['a'], claim, renew_ms: 60_000 }, state, ctx).ok, false, 'already present');
  assert.equal(state.presence!.a!.processes.length, 1);
  mustOk(apply('presence_leave', { ids: ['a'], claim }, state, ctx));
  assert.equal(state.presence!.a!.processes.length, 0);
});

// Review C: failing tests for engine defects found against PROTOCOL.md and the
// reference's section 11.2. Each test names the rule it checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStatus } from '../../src/cli/status';
import { HistoryLog, NODE_FS } from '../../src/store/index';
import {
  buildArchiveContext, createChannel, history, drainQueue, emptyState, joinChannel, kickChannel, parseArchive, requeueFailedDelivery,
  parseState, sendMessage, serializeState, sweepInFlight, timerAction,
} from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, PROJECT, WORKTREE } from './helpers';

test('chess clock: a member whose id is "constructor" gets a numeric elapsed time, not Object.prototype text', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  mustOk(createChannel(state, {
    channel: 'dev', role: 'Lead', role_prompt: 'lead', session_id: 'constructor', project_id: PROJECT, worktree: WORKTREE, delivery_mode: 'pull',
  }, ctx));
  mustOk(joinChannel(state, {
    channel: 'dev', role: 'Helper', role_prompt: 'help', session_id: 'b', project_id: PROJECT, worktree: WORKTREE, delivery_mode: 'pull',
  }, ctx));
  mustOk(timerAction(state, { channel: 'dev', session_id: 'constructor', action: 'start' }, ctx));
  ctx.advance(40);
  const report = mustOk(timerAction(state, { channel: 'dev', session_id: 'constructor', action: 'status' }, ctx));
  assert.equal(report.data!.total_ms, 40);
  assert.deepEqual(report.data!.elapsed_ms_by_member, { constructor: 40 });
  mustOk(timerAction(state, { channel: 'dev', session_id: 'constructor', action: 'stop' }, ctx));
  assert.equal(state.channels.dev!.timer.elapsed_ms.constructor, 40);
});

test('chess clock: a member whose role is "toString" is reported under that role as a number', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  mustOk(createChannel(state, {
    channel: 'dev', role: 'toString', role_prompt: 'lead', session_id: 'a', project_id: PROJECT, worktree: WORKTREE, delivery_mode: 'pull',
  }, ctx));
  mustOk(timerAction(state, { channel: 'dev', session_id: 'a', action: 'start' }, ctx));
  ctx.advance(25);
  const report = mustOk(timerAction(state, { channel: 'dev', session_id: 'a', action: 'status' }, ctx));
  assert.deepEqual(report.data!.elapsed_ms_by_role, { toString: 25 });
});

test('archive context: a saved_at outside the Date range does not crash the joiner of a resumed channel', () => {
  // parseArchive accepts any JSON number for saved_at; Date only holds +-8.64e15 ms.
  const archive = parseArchive({
    schema: 1, channel_id: 'chn_00000000000000000000000000000001', name: 'old', members: [], messages: [], saved_at: 1e16,
  });
  assert.ok(archive, 'parseArchive accepted the record');
  assert.doesNotThrow(() => buildArchiveContext(archive, 'old-r2'));
});

test('send: to= an exact session id reaches that member, not another whose id differs only in case', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'Bob', 'bob']);
  const sent = sendMessage(state, { channel: 'dev', session_id: 'a', content: 'for lowercase bob', to: 'bob' }, ctx);
  // Either the exact id wins, or the engine refuses to guess; it must never pick Bob.
  if (sent.ok) assert.deepEqual(sent.data!.recipients, ['bob']);
  else assert.equal(sent.data!.reason, 'ambiguous_recipient');
});

test('kick: target_session_id removes that exact member, not another whose id differs only in case', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'Bob', 'bob']);
  const kicked = kickChannel(state, { channel: 'dev', session_id: 'a', target_session_id: 'bob' }, ctx);
  if (kicked.ok) {
    assert.equal(kicked.data!.kicked_session_id, 'bob');
    assert.deepEqual(state.channels.dev!.members.map((m) => m.session_id), ['a', 'Bob']);
  } else {
    assert.equal(kicked.data!.reason, 'unknown_target');
  }
});

test('requeue: a delivery whose lease was taken over cannot pull the envelope back from the new live owner', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const sent = mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'hello' }, ctx));
  const id = (sent.data!.message_ids as string[])[0]!;
  const first = { pid: 1, host: 'h', lease_until: ctx.now() + 30_000 };
  assert.equal(drainQueue(state, 'b', { owner: first, now: ctx.now() }).length, 1);
  ctx.advance(31_000); // the first owner's lease lapses while it is still busy
  sweepInFlight(state, () => true, ctx.now());
  const second = { pid: 2, host: 'h', lease_until: ctx.now() + 30_000 };
  assert.equal(drainQueue(state, 'b', { owner: second, now: ctx.now() }).length, 1);
  // The first owner's handover now fails and it gives its ids back (as hooks and the OpenCode plugin do).
  requeueFailedDelivery(state, 'b', [id]);
  const envelope = state.messages[id]!;
  assert.equal(envelope.delivery_status, 'in_flight', 'the second, live owner still holds it');
  assert.deepEqual(envelope.delivery_owner, second);
});

test('state validation: an errors entry whose time is outside the Date range is repaired, so `opencomms status` does not crash', () => {
  // checkErrors keeps any finite `at`; the operator status prints it with toISOString.
  const text = JSON.stringify({ schema_version: 2, channels: {}, messages: {}, queues: {}, delivered_to: {}, errors: [{ at: 1e16, message: 'hand-edited' }] });
  const parsed = parseState(text, 1_000_000);
  assert.ok(parsed.ok);
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-review-'));
  try {
    mkdirSync(join(dir, '.opencomms'));
    writeFileSync(join(dir, '.opencomms', 'state.json'), serializeState(parsed.state));
    let out = '';
    assert.doesNotThrow(() => runStatus({ projectDir: dir, json: false, write: (t) => { out += t; } }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('history: a hand-edited history line missing its envelope fields is skipped, not a crash of opencomms_history', () => {
  // The history reader keeps any line with a string message_id and a numeric timestamp;
  // the engine then frames it and calls string methods on the missing sender_role.
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const channelId = state.channels.dev!.id;
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-review-'));
  try {
    mkdirSync(join(dir, 'history'));
    writeFileSync(join(dir, 'history', `${channelId}.jsonl`), `${JSON.stringify({ message_id: 'ocm_1', timestamp: 5 })}\n`);
    const log = new HistoryLog({ port: NODE_FS, historyDir: join(dir, 'history') });
    const result = (() => history(state, { channel: 'dev', session_id: 'a' }, { ...ctx, history: log }));
    assert.doesNotThrow(result);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

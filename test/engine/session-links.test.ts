// One member per host session, and members who are away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyState, expireAwayMembers, findLinkedMember, lastSeenByMember, linkSession, markStale, needsLink, parseState, sendMessage, serializeState, channelStatus as status, type SessionRef } from '../../src/engine/index';
import { LAST_SEEN_STEP_MS, MAX_SESSION_LINKS, UNUSED_LINK_MS } from '../../src/engine/session-links';
import { channelWith, fakeCtx, mustOk, simulateSave } from './helpers';

const sid = (id: string, host = 'claude-code'): SessionRef => ({ kind: 'sid', host, id });
const proc = (id: string, host = 'gemini-cli'): SessionRef => ({ kind: 'proc', host, id });
const DAY = 86_400_000;

test('each new host session gets a fresh member, and the same session gets the same member back', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const a = linkSession(state, [sid('session-a')], [], ctx)!;
  const b = linkSession(state, [sid('session-b')], [], ctx)!;
  assert.equal(a.how, 'minted');
  assert.equal(b.how, 'minted');
  assert.notEqual(a.memberId, b.memberId);
  assert.match(a.memberId, /^sess_[0-9a-f]{32}$/);
  assert.deepEqual(linkSession(state, [sid('session-a')], [], ctx), { memberId: a.memberId, how: 'linked' });
  assert.equal(findLinkedMember(state, [sid('session-b')]), b.memberId);
});

test('a host session id is never itself a member id or a routing key', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const { memberId } = linkSession(state, [sid('sess_looks_like_a_member')], [], ctx)!;
  assert.notEqual(memberId, 'sess_looks_like_a_member');
  assert.equal(findLinkedMember(state, [sid(memberId)]), undefined);
});

test('an old install\'s pin is adopted by the first session only; the next session gets its own member', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  assert.deepEqual(linkSession(state, [sid('first')], ['sess_old_pin'], ctx), { memberId: 'sess_old_pin', how: 'adopted' });
  const second = linkSession(state, [sid('second')], ['sess_old_pin'], ctx)!;
  assert.equal(second.how, 'minted');
  assert.notEqual(second.memberId, 'sess_old_pin');
});

test('several unclaimed pins are never guessed between: the session gets a fresh member, and the one pin left unclaimed is adopted', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const first = linkSession(state, [sid('first')], ['sess_pin_a', 'sess_pin_b'], ctx)!;
  assert.equal(first.how, 'minted');
  assert.equal(['sess_pin_a', 'sess_pin_b'].includes(first.memberId), false);
  // Once one of them is taken (here, by OPENCOMMS_MEMBER_ID's session linking it), the other is the only one left.
  linkSession(state, [sid('pin-a-session')], ['sess_pin_a'], ctx);
  assert.deepEqual(linkSession(state, [sid('second')], ['sess_pin_a', 'sess_pin_b'], ctx), { memberId: 'sess_pin_b', how: 'adopted' });
});

test('a session link is keyed by host and id: the same id from another host finds no member', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const claude = linkSession(state, [sid('shared-id', 'claude-code')], [], ctx)!;
  for (const host of ['cursor', 'vscode', 'windsurf', 'goose', 'claude-desktop', 'codex', 'gemini-cli', 'opencode']) {
    assert.equal(findLinkedMember(state, [sid('shared-id', host)]), undefined, host);
    const other = linkSession(state, [sid('shared-id', host)], [], ctx)!;
    assert.equal(other.how, 'minted', host);
    assert.notEqual(other.memberId, claude.memberId, host);
  }
  assert.equal(findLinkedMember(state, [sid('shared-id', 'claude-code')]), claude.memberId);
  assert.equal(findLinkedMember(state, [proc('4242@99', 'cursor')]), undefined);
  linkSession(state, [proc('4242@99', 'claude-code')], [], ctx);
  assert.equal(findLinkedMember(state, [proc('4242@99', 'cursor')]), undefined, 'a host process is keyed by host too');
});

test('links written before they were keyed by host are read under the host they name', () => {
  const ctx = fakeCtx();
  const raw = JSON.parse(serializeState(emptyState()));
  raw.session_links = {
    'sid:old-claude': { member_id: 'sess_claude', host: 'claude-code', created_at: 1, last_seen: 1 },
    'proc:ns/77@5': { member_id: 'sess_gemini', host: 'gemini-cli', created_at: 1, last_seen: 1 },
    'sid:old-thread': { member_id: 'sess_codex', host: 'codex', created_at: 1, last_seen: 1 },
  };
  const parsed = parseState(JSON.stringify(raw), ctx.now());
  assert.equal(parsed.ok, true);
  if (!parsed.ok) return;
  assert.deepEqual(Object.keys(parsed.state.session_links!).sort(), ['proc@gemini-cli:ns/77@5', 'sid@claude-code:old-claude', 'sid@codex:old-thread']);
  assert.equal(findLinkedMember(parsed.state, [sid('old-claude')]), 'sess_claude');
  assert.equal(findLinkedMember(parsed.state, [sid('old-claude', 'cursor')]), undefined);
  assert.equal(findLinkedMember(parsed.state, [proc('ns/77@5')]), 'sess_gemini');
  assert.equal(findLinkedMember(parsed.state, [sid('old-thread', 'codex')]), 'sess_codex');
  assert.deepEqual(parsed.notes, []);
});

test('a host process never decides for a session that has an id of its own', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const threadA = linkSession(state, [sid('thread-a', 'codex'), proc('host-1', 'codex')], [], ctx)!;
  const threadB = linkSession(state, [sid('thread-b', 'codex'), proc('host-1', 'codex')], [], ctx)!;
  assert.notEqual(threadB.memberId, threadA.memberId, 'two threads of one host process are two members');
  // the process alias follows the newest session it ran, for servers that know only their process
  assert.equal(findLinkedMember(state, [proc('host-1', 'codex')]), threadB.memberId);
  assert.equal(findLinkedMember(state, [sid('thread-a', 'codex'), proc('host-1', 'codex')]), threadA.memberId);
  assert.equal(findLinkedMember(state, [sid('thread-new', 'codex'), proc('host-1', 'codex')]), undefined);
});

test('a session known only by its host process is linked by it (Gemini CLI: server and hooks share the host process)', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const server = linkSession(state, [proc('ns/4242@99')], [], ctx)!;
  assert.equal(findLinkedMember(state, [proc('ns/4242@99')]), server.memberId);
  assert.equal(findLinkedMember(state, [proc('ns/4242@100')]), undefined, 'a reused pid with another start time is another process');
});

test('ids that are empty, too long or not printable name no session', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  for (const bad of ['', '   ', 'a'.repeat(201), 'line\nbreak', 'tab\there', 'spa ce']) {
    assert.equal(linkSession(state, [sid(bad)], [], ctx), undefined, JSON.stringify(bad));
  }
  assert.equal(state.session_links === undefined || Object.keys(state.session_links).length === 0, true);
});

test('linking a session clears its member\'s away mark and records when it was last seen, at most once a minute', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['peer']);
  const { memberId } = linkSession(state, [sid('s')], [], ctx)!;
  assert.equal(needsLink(state, [sid('s')], ctx.now()), false);
  ctx.advance(LAST_SEEN_STEP_MS);
  assert.equal(needsLink(state, [sid('s')], ctx.now()), true);
  linkSession(state, [sid('s')], [], ctx);
  assert.equal(lastSeenByMember(state).get(memberId), ctx.now());
  markStale(state, 'peer', ctx.now());
  state.session_links!['sid@claude-code:x'] = { member_id: 'peer', host: 'claude-code', created_at: 0, last_seen: ctx.now() };
  assert.equal(needsLink(state, [sid('x')], ctx.now()), true, 'an away member must be marked back');
  linkSession(state, [sid('x')], [], ctx);
  assert.equal(state.channels.dev!.members[0]!.stale, false);
});

test('links of members in no channel are forgotten after a month unseen, and the table is bounded', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['kept']);
  state.session_links = { 'sid@h:kept-session': { member_id: 'kept', host: 'h', created_at: 0, last_seen: ctx.now() } };
  linkSession(state, [sid('gone')], [], ctx);
  ctx.advance(UNUSED_LINK_MS + 1);
  linkSession(state, [sid('new')], [], ctx);
  assert.deepEqual(Object.keys(state.session_links).sort(), ['sid@claude-code:new', 'sid@h:kept-session']);
  for (let i = 0; i < MAX_SESSION_LINKS + 5; i += 1) {
    ctx.advance(1);
    linkSession(state, [sid(`many-${i}`)], [], ctx);
  }
  assert.equal(Object.keys(state.session_links).length, MAX_SESSION_LINKS);
  assert.equal(findLinkedMember(state, [sid(`many-${MAX_SESSION_LINKS + 4}`)]) !== undefined, true, 'the newest stay');
});

test('session links survive a save and a load, and a malformed link is dropped with a note', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const { memberId } = linkSession(state, [sid('s')], [], ctx)!;
  const parsed = parseState(serializeState(state), ctx.now());
  assert.equal(parsed.ok, true);
  if (!parsed.ok) return;
  assert.equal(findLinkedMember(parsed.state, [sid('s')]), memberId);
  const raw = JSON.parse(serializeState(state));
  raw.session_links['sid:bad'] = { member_id: 'has space', host: 'h', created_at: 1, last_seen: 1 };
  const repaired = parseState(JSON.stringify(raw), ctx.now());
  assert.equal(repaired.ok, true);
  if (!repaired.ok) return;
  assert.equal(repaired.state.session_links!['sid:bad'], undefined);
  assert.match(repaired.notes.join('\n'), /session_links\["sid:bad"\]: dropped a malformed link/);
});

test('a member away longer than the channel keeps absent members leaves it; its waiting mail is rejected and each sender told once', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  markStale(state, 'b', ctx.now());
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'one', to: 'b' }, ctx));
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'two', to: 'b' }, ctx));
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'c', content: 'three', to: 'b' }, ctx));
  ctx.advance(7 * DAY);
  assert.equal(expireAwayMembers(state, ctx.now()), 0, 'exactly the retention is still kept');
  ctx.advance(1);
  assert.equal(expireAwayMembers(state, ctx.now()), 1);
  assert.deepEqual(state.channels.dev!.members.map((m) => m.session_id), ['a', 'c']);
  assert.deepEqual(Object.values(state.messages).map((e) => e.delivery_status), ['rejected', 'rejected', 'rejected']);
  simulateSave(state, ctx.history);
  assert.equal(ctx.history.list(state.channels.dev!.id).filter((r) => r.delivery_status === 'rejected').length, 3);
  const told = state.errors.filter((e) => /were not delivered/.test(e.message));
  assert.deepEqual(told.map((e) => e.member_id).sort(), ['a', 'c']);
  assert.match(told.find((e) => e.member_id === 'a')!.message, /^2 message\(s\) you sent to R1 \(b\) in channel "dev"/);
  assert.equal(expireAwayMembers(state, ctx.now()), 0);
  assert.equal(state.errors.filter((e) => /were not delivered/.test(e.message)).length, 2, 'told once');
  const seen = mustOk(status(state, { session_id: 'a' }, ctx));
  assert.match(JSON.stringify(seen.data), /were not delivered/);
});

test('the retention for absent members is set per channel at create', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b'], 'dev', emptyState(), { away_retention_ms: DAY });
  markStale(state, 'b', ctx.now());
  ctx.advance(DAY + 1);
  assert.equal(expireAwayMembers(state, ctx.now()), 1);
});

test('a member whose session is back before the retention ends keeps its seat and its mail', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  markStale(state, 'b', ctx.now());
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'wait for me' }, ctx));
  ctx.advance(6 * DAY);
  state.session_links = { 'sid@claude-code:b-session': { member_id: 'b', host: 'claude-code', created_at: 0, last_seen: 0 } };
  linkSession(state, [sid('b-session')], [], ctx);
  ctx.advance(2 * DAY);
  assert.equal(expireAwayMembers(state, ctx.now()), 0);
  assert.equal(state.queues.b!.length, 1);
});

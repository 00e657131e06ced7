// One contract, two stores. Every test here runs twice, through servers of
// the shipped wiring: on the file store (every server on ONE
// project folder) and on the Redis store (every server on a folder of its
// own, "its machine", all on one Redis project of a real redis-server). The
// assertions are the same for both: the engine's rules do not depend on
// where the state lives, and neither does "no acknowledged mail lost, none
// delivered twice", even with sender processes SIGKILLed mid-commit. Mail
// crossing with the doorbell and the storms run real server processes of the
// shipped file; the table of engine rules runs the same servers in this
// process (on both stores), where those rules live.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { parseFrames } from '../../src/engine';
import type { Json, ServerProcess } from '../helpers/server';
import { create, join, ok, refused, type Speaker } from './tools-support';
import { bothStores, bothStoresInProcess } from './store-rig';
import { seededRandom } from '../helpers/seeded-random';

const BELL = 'notifications/claude/channel';

/** A channel with one member (server) per role; the first creates it and coordinates. */
async function channelOf<S extends Speaker>(rig: { member(memberId: string): Promise<S> }, name: string, roles: readonly string[], createArgs: Json = {}): Promise<S[]> {
  const servers: S[] = [];
  for (const [i, role] of roles.entries()) {
    const server = await rig.member(`sess_${role}`);
    if (i === 0) await create(server, name, role, createArgs);
    else await join(server, name, role);
    servers.push(server);
  }
  return servers;
}

/** The content of each message of a pull / inbox / history result, in order. */
function contentsOf(result: Json): string[] {
  return (result.data?.messages ?? []).map((m: Json) => {
    const parsed = parseFrames(m.framed);
    assert.ok(parsed.ok, `unparseable frame: ${m.framed}`);
    assert.equal(parsed.frames.length, 1);
    return parsed.frames[0]!.content;
  });
}

// ---- every main engine rule, through the tools (servers in this process) --------

bothStoresInProcess('create makes the caller coordinator, join adds a role; a taken role is role_taken, a second join already_member, a second create already_exists', {}, async (_t, rig) => {
  const lead = await rig.member('sess_lead');
  const dev = await rig.member('sess_dev');
  const qa = await rig.member('sess_qa');
  const created = await create(lead, 'team', 'lead');
  assert.equal(created.data.session_id, 'sess_lead');
  const joined = await join(dev, 'team', 'dev');
  assert.equal(joined.data.channel_id, created.data.channel_id);
  await refused(qa, 'opencomms_join', { channel: 'team', role: 'dev', role_prompt: 'p' }, 'role_taken');
  await refused(dev, 'opencomms_join', { channel: 'team', role: 'tester', role_prompt: 'p' }, 'already_member');
  await refused(qa, 'opencomms_create', { channel: 'team', role: 'qa', role_prompt: 'p' }, 'already_exists');
  await refused(qa, 'opencomms_join', { channel: 'nowhere', role: 'qa', role_prompt: 'p' }, 'channel_not_found');
  await join(qa, 'team', 'qa');
  const status = await ok(qa, 'opencomms_status', { channel: 'team' });
  const [team] = status.data.channels;
  assert.deepEqual(team.members.map((m: Json) => [m.session_id, m.role]), [['sess_lead', 'lead'], ['sess_dev', 'dev'], ['sess_qa', 'qa']]);
});

bothStoresInProcess('send reaches the member named by to (role or session id), or every other member with broadcast', {}, async (_t, rig) => {
  const [lead, dev, qa] = await channelOf(rig, 'team', ['lead', 'dev', 'qa']);
  assert.deepEqual((await ok(lead!, 'opencomms_send', { channel: 'team', content: 'for the dev', to: 'dev' })).data.recipients, ['sess_dev']);
  assert.deepEqual((await ok(lead!, 'opencomms_send', { channel: 'team', content: 'for qa', to: 'sess_qa' })).data.recipients, ['sess_qa']);
  const all = await ok(lead!, 'opencomms_send', { channel: 'team', content: 'standup in five', broadcast: true });
  assert.deepEqual([...all.data.recipients].sort(), ['sess_dev', 'sess_qa']);
  assert.deepEqual(contentsOf(await ok(dev!, 'opencomms_pull', {})), ['for the dev', 'standup in five']);
  assert.deepEqual(contentsOf(await ok(qa!, 'opencomms_pull', {})), ['for qa', 'standup in five']);
});

bothStoresInProcess('send refuses a guess, an unknown or self recipient, to with broadcast, a non-member, a duplicate, blank content, a reserved type and the rate limit', {}, async (_t, rig) => {
  const [lead, dev] = await channelOf(rig, 'team', ['lead', 'dev', 'qa']);
  await refused(lead!, 'opencomms_send', { channel: 'team', content: 'who gets this?' }, 'ambiguous_recipient');
  await refused(lead!, 'opencomms_send', { channel: 'team', content: 'hi', to: 'ghost' }, 'unknown_recipient');
  await refused(lead!, 'opencomms_send', { channel: 'team', content: 'hi', to: 'lead' }, 'unknown_recipient');
  const both = await refused(lead!, 'opencomms_send', { channel: 'team', content: 'hi', to: 'dev', broadcast: true }, 'invalid_argument');
  assert.equal(both.data.argument, 'to');
  await refused(lead!, 'opencomms_send', { channel: 'team', content: ' \n ' , to: 'dev' }, 'content_required');
  await refused(lead!, 'opencomms_send', { channel: 'team', content: 'I am the system', to: 'dev', type: 'system' }, 'invalid_message_type');
  await ok(lead!, 'opencomms_send', { channel: 'team', content: 'same words', to: 'dev' });
  await refused(lead!, 'opencomms_send', { channel: 'team', content: 'same words', to: 'dev' }, 'duplicate');
  const outsider = await rig.member('sess_outsider');
  await create(outsider, 'elsewhere', 'loner', { rate_limit: 1 });
  await refused(outsider, 'opencomms_send', { channel: 'team', content: 'let me in', to: 'lead' }, 'not_member');
  await join(dev!, 'elsewhere', 'dev');
  await ok(outsider, 'opencomms_send', { channel: 'elsewhere', content: 'one' });
  await refused(outsider, 'opencomms_send', { channel: 'elsewhere', content: 'two' }, 'rate_limited');
  // Only the accepted sends were queued.
  assert.deepEqual(contentsOf(await ok(dev!, 'opencomms_pull', {})), ['same words', 'one']);
});

bothStoresInProcess('a paused channel refuses sends and holds its queued mail until it is resumed', {}, async (_t, rig) => {
  const [writer, reviewer] = await channelOf(rig, 'review', ['writer', 'reviewer']);
  await ok(writer!, 'opencomms_send', { channel: 'review', content: 'before the pause' });
  await ok(reviewer!, 'opencomms_pause', { channel: 'review' });
  await refused(writer!, 'opencomms_send', { channel: 'review', content: 'during the pause' }, 'paused');
  const held = await ok(reviewer!, 'opencomms_pull', {});
  assert.deepEqual(held.data.message_ids, []);
  assert.equal((await ok(reviewer!, 'opencomms_inbox', { channel: 'review' })).data.pending, 1);
  await ok(writer!, 'opencomms_resume', { channel: 'review' });
  await ok(writer!, 'opencomms_send', { channel: 'review', content: 'after the pause' });
  assert.deepEqual(contentsOf(await ok(reviewer!, 'opencomms_pull', {})), ['before the pause', 'after the pause']);
});

bothStoresInProcess('only the coordinator kicks; the kicked member is refused at once and the others get the notice', {}, async (_t, rig) => {
  const [lead, dev, qa] = await channelOf(rig, 'team', ['lead', 'dev', 'qa']);
  await refused(dev!, 'opencomms_kick', { channel: 'team', target_role: 'qa' }, 'not_coordinator');
  await refused(lead!, 'opencomms_kick', { channel: 'team', target_role: 'lead' }, 'cannot_kick_self');
  await ok(dev!, 'opencomms_send', { channel: 'team', content: 'a last word', to: 'qa' });
  const kicked = await ok(lead!, 'opencomms_kick', { channel: 'team', target_role: 'dev' });
  assert.equal(kicked.data.kicked_by_session_id, 'sess_lead');
  await refused(dev!, 'opencomms_send', { channel: 'team', content: 'still here?', to: 'lead' }, 'not_member');
  await refused(dev!, 'opencomms_pull', {}, 'not_member');
  const notice = await ok(qa!, 'opencomms_pull', { channel: 'team' });
  // Mail the kicked member sent before stays; the notice names who went and who kicked.
  const [lastWord, system] = contentsOf(notice);
  assert.equal(lastWord, 'a last word');
  assert.match(system!, /sess_dev/);
  assert.match(system!, /by lead \(sess_lead\)/);
  const status = await ok(qa!, 'opencomms_status', { channel: 'team' });
  assert.deepEqual(status.data.channels[0].members.map((m: Json) => m.session_id), ['sess_lead', 'sess_qa']);
});

bothStoresInProcess('inbox previews pending mail without consuming it; pull consumes it, and a second pull finds nothing', {}, async (_t, rig) => {
  const [writer, reviewer] = await channelOf(rig, 'review', ['writer', 'reviewer']);
  const first = await ok(writer!, 'opencomms_send', { channel: 'review', content: 'first' });
  const second = await ok(writer!, 'opencomms_send', { channel: 'review', content: 'second' });
  const ids = [...first.data.message_ids, ...second.data.message_ids];
  for (let i = 0; i < 2; i++) {
    const inbox = await ok(reviewer!, 'opencomms_inbox', { channel: 'review' });
    assert.equal(inbox.data.pending, 2);
    assert.deepEqual(inbox.data.messages.map((m: Json) => m.message_id), ids);
  }
  const pulled = await ok(reviewer!, 'opencomms_pull', { limit: 1 });
  assert.deepEqual(pulled.data.message_ids, [ids[0]]);
  assert.equal(pulled.data.remaining, 1);
  assert.deepEqual((await ok(reviewer!, 'opencomms_pull', {})).data.message_ids, [ids[1]]);
  assert.deepEqual((await ok(reviewer!, 'opencomms_pull', {})).data.message_ids, []);
  assert.equal((await ok(reviewer!, 'opencomms_inbox', { channel: 'review' })).data.pending, 0);
});

bothStoresInProcess('history pages newest first with before, and query finds only the messages holding every word', {}, async (_t, rig) => {
  const [writer, reviewer] = await channelOf(rig, 'review', ['writer', 'reviewer']);
  const sent: string[] = [];
  for (let i = 0; i < 5; i++) {
    const content = `note ${i} ${i % 2 === 0 ? 'parser alpha' : 'lexer'}`;
    sent.push((await ok(writer!, 'opencomms_send', { channel: 'review', content })).data.message_ids[0]);
  }
  // Three delivered (history on disk or in the stream), two still live.
  assert.equal((await ok(reviewer!, 'opencomms_pull', { limit: 3 })).data.message_ids.length, 3);
  const newestFirst = [...sent].reverse();
  const seen: string[] = [];
  let before: string | undefined;
  for (const expected of [[0, 2], [2, 4], [4, 5]]) {
    const page = await ok(writer!, 'opencomms_history', { channel: 'review', limit: 2, ...(before ? { before } : {}) });
    assert.deepEqual(page.data.messages.map((m: Json) => m.message_id), newestFirst.slice(expected[0], expected[1]));
    assert.equal(page.data.has_more, expected[1] < 5);
    seen.push(...page.data.messages.map((m: Json) => m.message_id));
    before = page.data.next_before ?? undefined;
  }
  assert.deepEqual(seen, newestFirst);
  const found = await ok(reviewer!, 'opencomms_history', { channel: 'review', query: 'ALPHA parser' });
  assert.deepEqual(contentsOf(found), ['note 4 parser alpha', 'note 2 parser alpha', 'note 0 parser alpha']);
  assert.deepEqual((await ok(reviewer!, 'opencomms_history', { channel: 'review', query: 'alpha lexer' })).data.messages, []);
  await refused(reviewer!, 'opencomms_history', { channel: 'review', before: 'msg_nope' }, 'not_found');
});

bothStoresInProcess('a saved session leaves the live channels, is listed and readable in the archive, resumes as a new channel, and is deleted for good', {}, async (_t, rig) => {
  const [writer, reviewer] = await channelOf(rig, 'design', ['writer', 'reviewer']);
  await ok(writer!, 'opencomms_send', { channel: 'design', content: 'a ring buffer it is' });
  await ok(reviewer!, 'opencomms_pull', {});
  const saved = await ok(writer!, 'opencomms_save_session', { channel: 'design', summary: 'ring buffer chosen' });
  assert.equal(saved.data.message_count, 1);
  await refused(reviewer!, 'opencomms_send', { channel: 'design', content: 'still there?' }, 'channel_not_found');
  assert.deepEqual((await ok(reviewer!, 'opencomms_status', {})).data.channels, []);

  const listed = await ok(reviewer!, 'opencomms_archive', {});
  assert.deepEqual(listed.data.archives.map((a: Json) => a.archive_id ?? a.channel_id), [saved.data.archive_id]);
  const summary = await ok(reviewer!, 'opencomms_archive', { channel: 'design', mode: 'summary' });
  assert.match(JSON.stringify(summary.data), /ring buffer chosen/);
  assert.deepEqual(contentsOf(await ok(reviewer!, 'opencomms_archive', { channel: saved.data.archive_id, mode: 'messages' })), ['a ring buffer it is']);
  const outsider = await rig.member('sess_outsider');
  await refused(outsider, 'opencomms_resume_session', { channel: 'design' }, 'not_archived_member');

  const resumed = await ok(reviewer!, 'opencomms_resume_session', { channel: 'design' });
  assert.equal(resumed.data.name, 'design');
  assert.equal(resumed.data.parent_channel_id, saved.data.archive_id);
  await join(writer!, 'design', 'writer');
  // The resumed channel searches its saved ancestry.
  assert.deepEqual(contentsOf(await ok(writer!, 'opencomms_history', { channel: 'design', query: 'ring' })), ['a ring buffer it is']);

  await refused(writer!, 'opencomms_delete_session', { channel: saved.data.archive_id, confirm: false }, 'confirm_required');
  await ok(writer!, 'opencomms_delete_session', { channel: saved.data.archive_id, confirm: true });
  assert.deepEqual((await ok(reviewer!, 'opencomms_archive', {})).data.archives, []);
  await refused(reviewer!, 'opencomms_resume_session', { channel: saved.data.archive_id }, 'not_found');
});

bothStoresInProcess('a reservation refuses an overlapping one of another member until it is released', {}, async (_t, rig) => {
  const [writer, reviewer] = await channelOf(rig, 'dev', ['writer', 'reviewer']);
  const granted = await ok(writer!, 'opencomms_reserve', { channel: 'dev', paths: ['src/a.ts'], reason: 'splitting it' });
  assert.deepEqual(granted.data.granted.map((g: Json) => g.path), ['src/a.ts']);
  const clash = await refused(reviewer!, 'opencomms_reserve', { channel: 'dev', paths: ['src/*.ts'] }, 'reservation_conflict');
  assert.equal(clash.data.conflicts[0].holder, 'sess_writer');
  assert.equal(clash.data.conflicts[0].held_path, 'src/a.ts');
  // Paths that do not overlap are granted.
  await ok(reviewer!, 'opencomms_reserve', { channel: 'dev', paths: ['docs/**'] });
  await ok(writer!, 'opencomms_release', { channel: 'dev', paths: ['src/a.ts'] });
  const after = await ok(reviewer!, 'opencomms_reserve', { channel: 'dev', paths: ['src/*.ts'] });
  assert.deepEqual(after.data.granted.map((g: Json) => g.path), ['src/*.ts']);
  await refused(writer!, 'opencomms_reserve', { channel: 'dev', paths: ['src/a.ts'] }, 'reservation_conflict');
});

bothStoresInProcess('a member who leaves is refused at once and its queued mail is dropped; the last to leave removes the channel', {}, async (_t, rig) => {
  const [writer, reviewer] = await channelOf(rig, 'review', ['writer', 'reviewer']);
  await ok(writer!, 'opencomms_send', { channel: 'review', content: 'never read' });
  await ok(reviewer!, 'opencomms_disconnect', { channel: 'review' });
  await refused(reviewer!, 'opencomms_pull', { channel: 'review' }, 'not_member');
  await refused(writer!, 'opencomms_send', { channel: 'review', content: 'anyone?' }, 'no_recipient');
  const history = await ok(writer!, 'opencomms_history', { channel: 'review' });
  assert.deepEqual(history.data.messages.map((m: Json) => m.delivery_status), ['rejected']);
  const last = await ok(writer!, 'opencomms_disconnect', { channel: 'review' });
  assert.equal(last.data.channel_removed, true);
  assert.deepEqual((await ok(writer!, 'opencomms_status', {})).data.channels, []);
  assert.deepEqual((await ok(reviewer!, 'opencomms_status', {})).data.channels, []);
});

// ---- two machines and the doorbell -----------------------------------------

bothStores('mail crosses between two members\' servers and the doorbell rings on the receiving side only', { timeout: 60_000 }, async (_t, rig) => {
  const alice = await rig.member('sess_alice', 'claude-code');
  const bob = await rig.member('sess_bob', 'claude-code');
  await create(alice, 'review', 'writer');
  await join(bob, 'review', 'reviewer');
  const bells = (server: ServerProcess): Json[] => server.replies.filter((r) => r.method === BELL);

  await ok(alice, 'opencomms_send', { channel: 'review', content: 'please review parser.ts' });
  const bell = await bob.waitFor('the bell on bob\'s side', () => bells(bob)[0]);
  assert.deepEqual(bell.params.meta, { channel: 'review', from_role: 'writer', count: '1' });
  assert.deepEqual(contentsOf(await ok(bob, 'opencomms_pull', {})), ['please review parser.ts']);

  await ok(bob, 'opencomms_send', { channel: 'review', content: 'looks good' });
  await alice.waitFor('the bell back on alice\'s side', () => bells(alice)[0]);
  assert.deepEqual(contentsOf(await ok(alice, 'opencomms_pull', {})), ['looks good']);
  // Nobody is rung for their own send.
  assert.equal(bells(alice).length, 1);
  assert.equal(bells(bob).length, 1);
});

// ---- many processes at once ------------------------------------------------

/** A counter the test bumps on every acknowledged send; waiters wake on any bump after the value they saw. */
class Progress {
  value = 0;
  private waiters: (() => void)[] = [];
  bump(): void {
    this.value++;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
  /** Resolves once value has moved past `seen` (at once if it already has). */
  after(seen: number): Promise<void> {
    if (this.value !== seen) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

function withDeadline<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`deadline passed: ${what}`)), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/**
 * Pulls as `receiver` until `isDone()` says the senders are finished and a
 * pull finds nothing more; between empty pulls it waits for the next
 * acknowledged send (never a fixed sleep). Returns every content, in order.
 */
async function pullEverything(receiver: ServerProcess, progress: Progress, isDone: () => boolean, deadline: number): Promise<string[]> {
  const got: string[] = [];
  for (;;) {
    if (Date.now() > deadline) throw new Error(`deadline passed with ${got.length} message(s) pulled`);
    const seen = progress.value;
    const finished = isDone();
    const pulled = await ok(receiver, 'opencomms_pull', { limit: 100 });
    got.push(...contentsOf(pulled));
    if (pulled.data.message_ids.length > 0) continue;
    if (finished) return got;
    // A sender finishing bumps the counter too, so this wakes for the last look.
    await withDeadline(progress.after(seen), deadline, `pulled ${got.length} so far`);
  }
}

const label = (sender: string, n: number): string => `${sender}-${String(n).padStart(3, '0')}`;

/** Per sender tag, the numbers of its labels in the order they appear. */
function numbersBySender(contents: readonly string[]): Map<string, number[]> {
  const bySender = new Map<string, number[]>();
  for (const content of contents) {
    const match = /^(\w+)-(\d+)$/.exec(content);
    assert.ok(match, `unexpected content ${JSON.stringify(content)}`);
    const list = bySender.get(match[1]!) ?? [];
    list.push(Number(match[2]));
    bySender.set(match[1]!, list);
  }
  return bySender;
}

const SENDERS = 6;
const SENDS_EACH = 50;
/** Calls each sender keeps in flight on its pipe: replies come in request order, so they stay numbered. */
const WINDOW = 8;

bothStores('six sender processes x 50 sends reach one receiver: none lost, none twice, each sender in order', { timeout: 240_000 }, async (t, rig) => {
  const receiver = await rig.member('sess_receiver');
  await create(receiver, 'flood', 'receiver', { rate_limit: 1000, max_agent_streak: 0 });
  const senders: ServerProcess[] = [];
  for (let i = 0; i < SENDERS; i++) {
    const sender = await rig.member(`sess_s${i}`);
    await join(sender, 'flood', `s${i}`);
    senders.push(sender);
  }
  const progress = new Progress();
  let running = SENDERS;
  const deadline = Date.now() + 200_000;
  const sendAll = async (sender: ServerProcess, tag: string): Promise<Json[]> => {
    const results: Json[] = [];
    const inFlight: Promise<Json>[] = [];
    const call = (n: number): Promise<Json> =>
      sender.callTool('opencomms_send', { channel: 'flood', content: label(tag, n), to: 'receiver' }).then((r) => {
        progress.bump();
        return r;
      });
    for (let n = 0; n < SENDS_EACH; n++) {
      if (inFlight.length >= WINDOW) results.push(await inFlight.shift()!);
      inFlight.push(call(n));
    }
    while (inFlight.length > 0) results.push(await inFlight.shift()!);
    running -= 1;
    progress.bump();
    return results;
  };
  const sending = Promise.all(senders.map((sender, i) => sendAll(sender, `s${i}`)));
  const [replies, got] = await Promise.all([sending, pullEverything(receiver, progress, () => running === 0, deadline)]);

  const refusedSends = replies.flat().filter((r) => r.ok !== true);
  assert.deepEqual(refusedSends, [], 'every send acknowledged');
  const bySender = numbersBySender(got);
  let lost = 0;
  let duplicated = 0;
  for (let i = 0; i < SENDERS; i++) {
    const numbers = bySender.get(`s${i}`) ?? [];
    lost += SENDS_EACH - new Set(numbers).size;
    duplicated += numbers.length - new Set(numbers).size;
    assert.deepEqual(numbers, Array.from({ length: SENDS_EACH }, (_, n) => n), `sender s${i}: every number once, in order`);
  }
  t.diagnostic(`${rig.kind}: ${got.length} delivered of ${SENDERS * SENDS_EACH}, ${lost} lost, ${duplicated} duplicated`);
  assert.equal(got.length, SENDERS * SENDS_EACH);
});

// ---- a SIGKILL storm -------------------------------------------------------

const STORM_SLOTS = 4;
const STORM_MS = 2_500;
const STORM_MAX_MS = 20_000;
const MIN_KILLS = 12;
const MIN_ACKED = 50;
/** A server is killed a few milliseconds after one of its first sends was written: before, during or after its commit. */
const MAX_SENDS_BEFORE_KILL = 12;
const MAX_KILL_DELAY_MS = 12;

type Fate = 'acked' | 'refused' | 'unknown';

bothStores('sender processes SIGKILLed at random moments and restarted lose no acknowledged send and deliver nothing twice', { timeout: 180_000 }, async (t, rig) => {
  const random = seededRandom(`send kill storm (${rig.kind} store)`, t);
  const receiver = await rig.member('sess_receiver');
  // One channel per sender: each has its own rate window.
  for (let i = 0; i < STORM_SLOTS; i++) await create(receiver, `storm-${i}`, 'receiver', { rate_limit: 1000, max_agent_streak: 0 });
  const fates = new Map<string, Fate>();
  const refusals: string[] = [];
  const progress = new Progress();
  let kills = 0;
  let isStopping = false;
  let running = STORM_SLOTS;
  const started = Date.now();

  const slot = async (i: number): Promise<void> => {
    let n = 0;
    let isJoined = false;
    while (!isStopping) {
      const server = rig.start(`sess_k${i}`);
      const closed = once(server.child, 'close');
      await server.initialize();
      if (!isJoined) {
        await join(server, `storm-${i}`, `k${i}`);
        isJoined = true;
      }
      const killAt = 1 + Math.floor(random() * MAX_SENDS_BEFORE_KILL);
      let isAlive = true;
      for (let sent = 1; isAlive && !isStopping; sent++) {
        const content = label(`k${i}`, n++);
        server.send({ jsonrpc: '2.0', id: content, method: 'tools/call', params: { name: 'opencomms_send', arguments: { channel: `storm-${i}`, content } } });
        if (sent === killAt) {
          setTimeout(() => {
            if (server.child.exitCode === null && server.child.signalCode === null) {
              server.child.kill('SIGKILL');
              kills += 1;
            }
          }, random() * MAX_KILL_DELAY_MS);
        }
        let reply: Json | undefined;
        try {
          reply = await server.reply(content);
        } catch {
          // Killed: a reply written before the kill may still be in the pipe.
          await closed;
          reply = server.replies.find((r) => r.id === content);
          isAlive = false;
        }
        const result = reply?.result?.structuredContent;
        if (result?.ok === true) {
          fates.set(content, 'acked');
          progress.bump();
        } else if (result) {
          fates.set(content, 'refused');
          refusals.push(`${content}: ${result.data?.reason}`);
        } else {
          fates.set(content, 'unknown');
        }
      }
      if (isAlive) {
        server.child.stdin.end();
        await closed;
      }
    }
    running -= 1;
    progress.bump();
  };

  const stopper = (async () => {
    // Runs for STORM_MS and until MIN_KILLS and MIN_ACKED, within STORM_MAX_MS.
    const ackedSoFar = (): number => [...fates.values()].filter((f) => f === 'acked').length;
    while (Date.now() - started < STORM_MAX_MS && (Date.now() - started < STORM_MS || kills < MIN_KILLS || ackedSoFar() < MIN_ACKED)) {
      await withDeadline(progress.after(progress.value), started + STORM_MAX_MS, 'a send during the storm').catch(() => undefined);
    }
    isStopping = true;
  })();
  const deadline = started + 120_000;
  const [got] = await Promise.all([
    pullEverything(receiver, progress, () => running === 0, deadline),
    stopper,
    ...Array.from({ length: STORM_SLOTS }, (_, i) => slot(i)),
  ]);

  const delivered = new Map<string, number>();
  for (const content of got) delivered.set(content, (delivered.get(content) ?? 0) + 1);
  const byFate = (fate: Fate): string[] => [...fates].filter(([, f]) => f === fate).map(([c]) => c);
  const acked = byFate('acked');
  const unknown = byFate('unknown');
  const lost = acked.filter((c) => !delivered.has(c));
  const duplicated = [...delivered].filter(([, count]) => count > 1).map(([c]) => c);
  const neverSent = [...delivered.keys()].filter((c) => !fates.has(c));
  const refusedButDelivered = byFate('refused').filter((c) => delivered.has(c));
  const unknownDelivered = unknown.filter((c) => delivered.has(c)).length;
  t.diagnostic(`${rig.kind}: ${kills} kills in ${Date.now() - started} ms; ${acked.length} acknowledged, ${unknown.length} unacknowledged ` +
    `(${unknownDelivered} of them delivered), ${refusals.length} refused; ${lost.length} lost, ${duplicated.length} duplicated`);
  assert.ok(kills >= MIN_KILLS, `only ${kills} kills`);
  assert.ok(acked.length >= MIN_ACKED, `only ${acked.length} acknowledged sends`);
  assert.deepEqual(lost, [], 'acknowledged sends never delivered');
  assert.deepEqual(duplicated, [], 'sends delivered more than once');
  assert.deepEqual(neverSent, []);
  assert.deepEqual(refusedButDelivered, [], 'refused sends that were delivered anyway');
  // Each sender sends one at a time, so its mail arrives in its own order.
  for (const [sender, numbers] of numbersBySender(got)) {
    assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b), `sender ${sender} out of order`);
  }
});

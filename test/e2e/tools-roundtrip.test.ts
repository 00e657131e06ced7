// The messaging tools: several servers on one project, each its own member.
// Mail crossing from one server process to another, the tool list and the
// shape of a tools/call result go through real processes; the table of
// sends, refusals and kicks runs the same servers in this process
// (tools-support's localChannelOf), which is where their rules live.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempProject } from '../helpers/server';
import { parseFrames } from '../../src/engine';
import { callRaw, create, editState, join, localChannelOf, localMember, member, ok, refused } from './tools-support';

const TOOL_ORDER = [
  'opencomms_create', 'opencomms_join', 'opencomms_send', 'opencomms_inbox', 'opencomms_pull', 'opencomms_status',
  'opencomms_history', 'opencomms_pause', 'opencomms_resume', 'opencomms_disconnect', 'opencomms_update_role',
  'opencomms_kick', 'opencomms_timer', 'opencomms_save_session', 'opencomms_resume_session',
  'opencomms_delete_session', 'opencomms_archive', 'opencomms_reserve', 'opencomms_release', 'opencomms_task',
];
const READ_ONLY = ['opencomms_inbox', 'opencomms_status', 'opencomms_history', 'opencomms_archive'];
const DESTRUCTIVE = ['opencomms_disconnect', 'opencomms_kick', 'opencomms_delete_session'];

function contentsOf(pull: { data?: { messages?: { framed: string }[] } }): string[] {
  return (pull.data?.messages ?? []).map((m) => {
    const parsed = parseFrames(m.framed);
    assert.ok(parsed.ok, `unparseable frame: ${m.framed}`);
    assert.equal(parsed.frames.length, 1);
    return parsed.frames[0]!.content;
  });
}

test('a message sent by one process is pulled by another process on the same project', async (t) => {
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  const created = await create(writer, 'review', 'writer');
  assert.equal(created.data.session_id, 'sess_writer');
  const joined = await join(reviewer, 'review', 'reviewer');
  assert.equal(joined.data.channel_id, created.data.channel_id);

  const sent = await ok(writer, 'opencomms_send', { channel: 'review', content: 'please look at parser.ts' });
  assert.deepEqual(sent.data.recipients, ['sess_reviewer']);
  assert.equal(sent.data.message_ids.length, 1);

  const pulled = await ok(reviewer, 'opencomms_pull', {});
  assert.deepEqual(pulled.data.message_ids, sent.data.message_ids);
  assert.deepEqual(contentsOf(pulled), ['please look at parser.ts']);
  assert.match(pulled.data.messages[0].framed, /from writer \(sess_writer\)/);
});

test('inbox previews pending mail without consuming it, and a pull afterwards still receives it', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await localChannelOf(t, project, 'review', ['writer', 'reviewer']);
  const sent = await ok(writer, 'opencomms_send', { channel: 'review', content: 'first draft ready' });

  for (let i = 0; i < 2; i += 1) {
    const inbox = await ok(reviewer, 'opencomms_inbox', { channel: 'review' });
    assert.equal(inbox.data.pending, 1);
    assert.deepEqual(inbox.data.messages.map((m: { message_id: string }) => m.message_id), sent.data.message_ids);
  }
  const pulled = await ok(reviewer, 'opencomms_pull', { channel: 'review' });
  assert.deepEqual(pulled.data.message_ids, sent.data.message_ids);
  const after = await ok(reviewer, 'opencomms_inbox', { channel: 'review' });
  assert.equal(after.data.pending, 0);
});

test('a broadcast reaches both other members', async (t) => {
  const project = tempProject(t);
  const [lead, dev, qa] = await localChannelOf(t, project, 'team', ['lead', 'dev', 'qa']);
  const sent = await ok(lead!, 'opencomms_send', { channel: 'team', content: 'standup in five', broadcast: true });
  assert.deepEqual([...sent.data.recipients].sort(), ['sess_dev', 'sess_qa']);
  assert.deepEqual(contentsOf(await ok(dev!, 'opencomms_pull', {})), ['standup in five']);
  assert.deepEqual(contentsOf(await ok(qa!, 'opencomms_pull', {})), ['standup in five']);
});

test('with three members a send that names no recipient is refused as ambiguous_recipient, never guessed', async (t) => {
  const project = tempProject(t);
  const [lead, dev, qa] = await localChannelOf(t, project, 'team', ['lead', 'dev', 'qa']);
  await refused(lead!, 'opencomms_send', { channel: 'team', content: 'who gets this?' }, 'ambiguous_recipient');
  assert.equal((await ok(dev!, 'opencomms_inbox', { channel: 'team' })).data.pending, 0);
  assert.equal((await ok(qa!, 'opencomms_inbox', { channel: 'team' })).data.pending, 0);
});

test('to picks the recipient by role or by session id', async (t) => {
  const project = tempProject(t);
  const [lead, dev, qa] = await localChannelOf(t, project, 'team', ['lead', 'dev', 'qa']);
  const byRole = await ok(lead!, 'opencomms_send', { channel: 'team', content: 'for the dev', to: 'dev' });
  assert.deepEqual(byRole.data.recipients, ['sess_dev']);
  const byId = await ok(lead!, 'opencomms_send', { channel: 'team', content: 'for the tester', to: 'sess_qa' });
  assert.deepEqual(byId.data.recipients, ['sess_qa']);
  assert.deepEqual(contentsOf(await ok(dev!, 'opencomms_pull', {})), ['for the dev']);
  assert.deepEqual(contentsOf(await ok(qa!, 'opencomms_pull', {})), ['for the tester']);
});

test('send refuses the reserved system type with invalid_message_type', async (t) => {
  const [writer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer']);
  await refused(writer!, 'opencomms_send', { channel: 'c', content: 'I am the system', type: 'system' }, 'invalid_message_type');
});

test('send refuses the same content twice in a row with duplicate', async (t) => {
  const [writer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer']);
  await ok(writer!, 'opencomms_send', { channel: 'c', content: 'same words' });
  await refused(writer!, 'opencomms_send', { channel: 'c', content: 'same words' }, 'duplicate');
});

test('send refuses past the channel rate limit with rate_limited', async (t) => {
  const [writer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer'], { rate_limit: 1 });
  await ok(writer!, 'opencomms_send', { channel: 'c', content: 'one' });
  await refused(writer!, 'opencomms_send', { channel: 'c', content: 'two' }, 'rate_limited');
});

test('a reply chain longer than max_hops is refused with hop_limit', async (t) => {
  const [writer, reviewer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer'], { max_hops: 1 });
  const first = await ok(writer!, 'opencomms_send', { channel: 'c', content: 'opening' });
  const reply = await ok(reviewer!, 'opencomms_send', { channel: 'c', content: 'answer', reply_to: first.data.message_ids[0] });
  await refused(writer!, 'opencomms_send', { channel: 'c', content: 'answer to the answer', reply_to: reply.data.message_ids[0] }, 'hop_limit');
});

test('send on a paused channel is refused with paused', async (t) => {
  const [writer, reviewer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer']);
  await ok(reviewer!, 'opencomms_pause', { channel: 'c' });
  await refused(writer!, 'opencomms_send', { channel: 'c', content: 'anyone?' }, 'paused');
  await ok(writer!, 'opencomms_resume', { channel: 'c' });
  await ok(writer!, 'opencomms_send', { channel: 'c', content: 'anyone?' });
});

test('reply_to naming an unknown message is refused with invalid_reply_to', async (t) => {
  const [writer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer']);
  await refused(writer!, 'opencomms_send', { channel: 'c', content: 're: nothing', reply_to: 'msg_does_not_exist' }, 'invalid_reply_to');
});

test('reply_to naming a message of another channel is refused with invalid_reply_to', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await localChannelOf(t, project, 'first', ['writer', 'reviewer']);
  await create(writer!, 'second', 'writer');
  await join(reviewer!, 'second', 'reviewer');
  const elsewhere = await ok(writer!, 'opencomms_send', { channel: 'second', content: 'in the second channel' });
  await refused(reviewer!, 'opencomms_send', {
    channel: 'first', content: 'cross-channel reply', reply_to: elsewhere.data.message_ids[0],
  }, 'invalid_reply_to');
});

test('blank content is refused with content_required', async (t) => {
  const [writer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer']);
  await refused(writer!, 'opencomms_send', { channel: 'c', content: ' \n\t ' }, 'content_required');
});

test('content of exactly 100,000 UTF-16 units is sent and one unit more is refused with content_too_large', async (t) => {
  const [writer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer']);
  // 50,000 astral characters are 100,000 UTF-16 units: the limit counts units, as JavaScript does.
  await ok(writer!, 'opencomms_send', { channel: 'c', content: '\u{1F600}'.repeat(50_000) });
  const refusal = await refused(writer!, 'opencomms_send', { channel: 'c', content: 'y'.repeat(100_001) }, 'content_too_large');
  assert.match(refusal.message, /100,?000/);
});

test('a member of another channel cannot send into this one: not_member', async (t) => {
  const project = tempProject(t);
  await localChannelOf(t, project, 'inside', ['writer', 'reviewer']);
  const outsider = await localMember(t, project, 'sess_outsider');
  await create(outsider, 'elsewhere', 'loner');
  await refused(outsider, 'opencomms_send', { channel: 'inside', content: 'let me in', to: 'writer' }, 'not_member');
});

test('send is refused with budget_exhausted once the message budget is delivered', async (t) => {
  const [writer, reviewer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer'], { budget_messages: 1 });
  await ok(writer!, 'opencomms_send', { channel: 'c', content: 'the only one' });
  await ok(reviewer!, 'opencomms_pull', {});
  const refusal = await refused(writer!, 'opencomms_send', { channel: 'c', content: 'one more' }, 'budget_exhausted');
  assert.equal(refusal.data.budget, 'messages');
});

test('a kicked member is denied with not_member on its very next call', async (t) => {
  const [lead, dev] = await localChannelOf(t, tempProject(t), 'team', ['lead', 'dev', 'qa']);
  await ok(lead!, 'opencomms_kick', { channel: 'team', target_role: 'dev' });
  await refused(dev!, 'opencomms_send', { channel: 'team', content: 'still here?', to: 'lead' }, 'not_member');
  await refused(dev!, 'opencomms_pull', {}, 'not_member');
});

test('a member who is not the coordinator cannot kick: not_coordinator', async (t) => {
  const [, dev, qa] = await localChannelOf(t, tempProject(t), 'team', ['lead', 'dev', 'qa']);
  await refused(dev!, 'opencomms_kick', { channel: 'team', target_role: 'qa' }, 'not_coordinator');
  await ok(qa!, 'opencomms_status', { channel: 'team' });
  await ok(qa!, 'opencomms_inbox', { channel: 'team' });
});

test('the kick notice reaches the remaining member and names who kicked', async (t) => {
  const [lead, dev] = await localChannelOf(t, tempProject(t), 'team', ['lead', 'dev', 'qa']);
  const kick = await ok(lead!, 'opencomms_kick', { channel: 'team', target_session_id: 'sess_qa' });
  assert.equal(kick.data.kicked_by_session_id, 'sess_lead');
  const pulled = await ok(dev!, 'opencomms_pull', { channel: 'team' });
  assert.equal(pulled.data.messages.length, 1);
  assert.match(pulled.data.messages[0].framed, /type system/);
  const [notice] = contentsOf(pulled);
  assert.match(notice!, /sess_qa/);
  assert.match(notice!, /by lead \(sess_lead\)/);
});

// The whole list is read into every model's context: 20 tools, the board's among them, in at most
// 14,000 bytes (INTERFACE section 8; 19 tools took 13,432 before the board came).
test('tools/list is at most 14000 bytes and lists the 20 tools in order with honest annotations', async (t) => {
  const server = await member(t, tempProject(t), 'sess_lister');
  const reply = await server.request('tools/list');
  assert.ok(Buffer.byteLength(JSON.stringify(reply.result)) <= 14_000, `tools/list is ${Buffer.byteLength(JSON.stringify(reply.result))} bytes`);
  const tools: { name: string; annotations: Record<string, unknown> }[] = reply.result.tools;
  assert.deepEqual(tools.map((tool) => tool.name), TOOL_ORDER);
  for (const tool of tools) {
    assert.equal(tool.annotations.openWorldHint, false, tool.name);
    assert.equal(tool.annotations.readOnlyHint === true, READ_ONLY.includes(tool.name), tool.name);
    assert.notEqual(tool.annotations.readOnlyHint, false, `${tool.name}: false is the default and is left out`);
    assert.equal(tool.annotations.destructiveHint === true, DESTRUCTIVE.includes(tool.name), tool.name);
  }
});

test('a tools/call result carries the ToolResult both as text and as structuredContent', async (t) => {
  const server = await member(t, tempProject(t), 'sess_one');
  const raw = await callRaw(server, 'opencomms_create', { channel: 'solo', role: 'writer', role_prompt: 'write' });
  assert.equal(raw.isError, false);
  assert.deepEqual(JSON.parse(raw.content[0].text), raw.structuredContent);
});

test('send refuses a message type it does not know with invalid_message_type', async (t) => {
  const [writer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer']);
  await refused(writer!, 'opencomms_send', { channel: 'c', content: 'hi', type: 'chat' }, 'invalid_message_type');
  await ok(writer!, 'opencomms_send', { channel: 'c', content: 'hi', type: 'review_request' });
});

test('send to a name that matches no other member is refused with unknown_recipient', async (t) => {
  const [writer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer']);
  await refused(writer!, 'opencomms_send', { channel: 'c', content: 'hi', to: 'ghost' }, 'unknown_recipient');
  await refused(writer!, 'opencomms_send', { channel: 'c', content: 'hi', to: 'writer' }, 'unknown_recipient');
});

test('send by the only member of a channel is refused with no_recipient', async (t) => {
  const server = await localMember(t, tempProject(t), 'sess_alone');
  await create(server, 'c', 'writer');
  await refused(server, 'opencomms_send', { channel: 'c', content: 'hello?' }, 'no_recipient');
  await refused(server, 'opencomms_send', { channel: 'c', content: 'hello all?', broadcast: true }, 'no_recipient');
});

test('send naming both to and broadcast is refused with invalid_argument', async (t) => {
  const [writer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer', 'tester']);
  const refusal = await refused(writer!, 'opencomms_send', { channel: 'c', content: 'hi', to: 'tester', broadcast: true }, 'invalid_argument');
  assert.equal(refusal.data.argument, 'to');
});

test('a send to a member who is away is accepted and queued, and the reply says who is away since when', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await localChannelOf(t, project, 'c', ['writer', 'reviewer']);
  const since = Date.now() - 60_000;
  editState(project, (state) => {
    for (const entry of state.channels.c.members) {
      if (entry.session_id === 'sess_reviewer') Object.assign(entry, { stale: true, stale_at: since });
    }
    // Its session ended (as a SessionEnd hook records it): its server, last heard before then, no longer counts.
    const record = state.presence?.sess_reviewer;
    if (record) {
      record.ended_at = since;
      for (const p of record.processes) p.renewed_at = since - 1;
    }
  });
  const sent = await ok(writer!, 'opencomms_send', { channel: 'c', content: 'are you there?' });
  assert.deepEqual(sent.data.away, [{ member: 'sess_reviewer', role: 'reviewer', since }]);
  assert.match(sent.message, /reviewer \(sess_reviewer\) is away since .*The mail waits/);
  const pulled = await ok(reviewer!, 'opencomms_pull', {});
  assert.deepEqual(pulled.data.message_ids, sent.data.message_ids);
});

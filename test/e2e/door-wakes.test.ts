// Every wake of an idle session is delivered (issue 35): a real recipient
// server rings its Claude Code inbox (a Unix-socket stand-in) with a notice
// that differs from the one before, since Claude Code drops one equal to the
// last within 30 s; and mail its door gave up on after its rings is said by
// `status`, opencomms_status and `doctor`. The rings again themselves are
// timed with mocked timers in test/delivery/ring-again.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { markUnwoken } from '../../src/engine/index';
import { openStore } from '../../src/store/index';
import { runCli, startServer, tempProject, type Json } from '../helpers/server';
import { until } from '../helpers/wait';
import { create, join, member, memberEnv, ok } from './tools-support';
import { hookEvent, parsed, startInbox } from './door-support';
import { edit } from '../helpers/edit';

const CC_SESSION = 'cc-reviewer';

test('two notices in a row through the Claude Code inbox differ, each naming its newest mail and no content', async (t) => {
  const inbox = await startInbox(t, { kind: 'accept' });
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'review', 'writer');
  const reviewer = startServer(t, {
    project,
    args: ['--project', project, '--host', 'claude-code'],
    env: { ...memberEnv(undefined), CLAUDE_CODE_SESSION_ID: CC_SESSION, CLAUDE_CODE_MESSAGING_SOCKET: inbox.path, CLAUDE_CODE_MESSAGING_TOKEN: 'tok' },
  });
  await reviewer.initialize();
  await join(reviewer, 'review', 'reviewer');
  await hookEvent(project, { hook_event_name: 'Stop', session_id: CC_SESSION });

  const first = await ok(writer, 'opencomms_send', { channel: 'review', content: 'SECRET-one' });
  const one = parsed(await inbox.connection(1))[1]!.message.content as string;
  // The woken session runs: its prompt hook brings the mail in, then it ends its turn.
  await hookEvent(project, { hook_event_name: 'UserPromptSubmit', session_id: CC_SESSION, prompt: one });
  await hookEvent(project, { hook_event_name: 'Stop', session_id: CC_SESSION });
  const second = await ok(writer, 'opencomms_send', { channel: 'review', content: 'SECRET-two' });
  const two = parsed(await inbox.connection(2))[1]!.message.content as string;

  assert.notEqual(two, one);
  assert.match(one, new RegExp(`^1 OpenComms message waits for you: from writer on channel review \\(newest ${first.data.message_ids[0]} sent \\d\\d:\\d\\d:\\d\\d UTC\\)\\. Call opencomms_pull`));
  assert.match(two, new RegExp(`^1 OpenComms message waits for you: from writer on channel review \\(newest ${second.data.message_ids[0]} `));
  assert.equal(inbox.allLines().some((l) => l.includes('SECRET')), false);
});

test('a notice that woke nobody is rung again through the inbox 30 s later, naming the same mail and the try', { timeout: 120_000 }, async (t) => {
  const inbox = await startInbox(t, { kind: 'accept' });
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'review', 'writer');
  const reviewer = startServer(t, {
    project,
    args: ['--project', project, '--host', 'claude-code'],
    env: { ...memberEnv(undefined), CLAUDE_CODE_SESSION_ID: CC_SESSION, CLAUDE_CODE_MESSAGING_SOCKET: inbox.path, CLAUDE_CODE_MESSAGING_TOKEN: 'tok' },
  });
  await reviewer.initialize();
  await join(reviewer, 'review', 'reviewer');
  await hookEvent(project, { hook_event_name: 'Stop', session_id: CC_SESSION });
  const sent = await ok(writer, 'opencomms_send', { channel: 'review', content: 'one' });
  const id: string = sent.data.message_ids[0];
  const one = parsed(await inbox.connection(1))[1]!.message.content as string;
  // The session never wakes: the real time of the first look again (RING_AGAIN_MS[0]), with room for a loaded machine.
  const again = await until('the ring again', () => inbox.connections[1], { timeoutMs: 90_000, everyMs: 200 });
  await again.done;
  const two = parsed(again)[1]!.message.content as string;
  assert.notEqual(two, one);
  assert.ok(one.includes(id) && two.includes(id), `${one}\n${two}`);
  assert.match(two, /rung again, 2 of 3/);
  // The door counts the ring once the inbox exchange has ended (a moment after the stand-in read both lines).
  const door = await until('the second ring counted', async () => {
    const d = (await ok(reviewer, 'opencomms_status', {})).data.door;
    return d.rings_unanswered === 2 ? d : undefined;
  });
  assert.equal(typeof door.ring_again_at, 'number');
});

test('mail its door rang three times without waking the member is said by status, opencomms_status and doctor until it is pulled', async (t) => {
  const project = tempProject(t);
  assert.equal((await runCli(['install', 'claude-code', '--project', project], { cwd: tmpdir() })).code, 0);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'review', 'writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  await join(reviewer, 'review', 'reviewer');
  const sent = await ok(writer, 'opencomms_send', { channel: 'review', content: 'look at this' });
  const id: string = sent.data.message_ids[0];
  // What the reviewer's door writes when it gives up (engine/unwoken), through the store as its server would.
  const store = openStore({ projectDir: project });
  await edit(store, (state) => ({ ok: markUnwoken(state, 'sess_reviewer', [id], 'inbox', 3, Date.now()).length === 1, message: 'marked' }));
  await store.close();

  const status = await runCli(['status', '--project', project]);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /not woken: reviewer \(sess_reviewer\) has 1 message that its door \(the Claude Code inbox\) rang 3 times without waking it/);
  const own = await ok(reviewer, 'opencomms_status', {});
  assert.deepEqual(own.data.unwoken.map((u: Json) => [u.member_id, u.via, u.rings, u.messages]), [['sess_reviewer', 'inbox', 3, 1]]);
  const doctor = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: { CLAUDE_CODE_MESSAGING_SOCKET: undefined, CLAUDE_CODE_MESSAGING_TOKEN: undefined } });
  assert.equal(doctor.code, 0, doctor.stdout);
  assert.match(doctor.stdout, /WARN delivery wake-ups: reviewer \(sess_reviewer\) has 1 message that its door \(the Claude Code inbox\) rang 3 times without waking it/);

  // Pulled: nothing more to say.
  await ok(reviewer, 'opencomms_pull', {});
  const after = await ok(writer, 'opencomms_status', {});
  assert.deepEqual(after.data.unwoken, []);
  const doctorAfter = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: { CLAUDE_CODE_MESSAGING_SOCKET: undefined, CLAUDE_CODE_MESSAGING_TOKEN: undefined } });
  assert.doesNotMatch(doctorAfter.stdout, /delivery wake-ups/);
});

// A person in the room, through real processes: `opencomms say` and `read`
// beside agents' MCP servers on one project, the refusals that keep agents
// out of the person's commands and ids, and the loop guard. The person's
// commands run as real processes at a terminal of their own (`script`, see
// helpers/person-terminal: they look at their own process, its ancestors and
// its terminal); the agents beside them are real server processes in the
// first test and in-process servers (localChannelOf) in the rest, and status,
// pin and install run in this process (runCliInProcess) after the first test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { personMemberId } from '../../src/engine/person';
import { DIST, runCli, runToExit, tempProject } from '../helpers/server';
import { cliCommand, runCliInTerminal, runInTerminal, shellWord } from '../helpers/person-terminal';
import { runCliInProcess } from '../helpers/cli-in-process';
import { channelOf, framedTexts, localChannelOf, localMember, ok, refused } from './tools-support';

const PERSON = personMemberId(userInfo().username);
/** Every variable by which an agent host gives itself away, unset: the test itself must look like a person's terminal. */
const HOST_VARIABLES = [
  'CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_MESSAGING_SOCKET', 'CODEX_THREAD_ID', 'CODEX_SANDBOX',
  'CODEX_SANDBOX_NETWORK_DISABLED', 'CODEX_CI', 'GEMINI_CLI', 'OPENCODE', 'OPENCODE_SESSION_ID',
];
function personEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined, OPENCOMMS_PROJECT_ID: undefined };
  for (const name of HOST_VARIABLES) env[name] = undefined;
  return { ...env, ...extra };
}
function person(project: string, args: string[], extra: Record<string, string | undefined> = {}, input?: string) {
  const [command, ...rest] = args;
  return runCliInTerminal([command!, '--project', project, ...rest], { env: personEnv(extra), input });
}
async function status(project: string, run = runCliInProcess): Promise<any> {
  const ran = await run(['status', '--project', project, '--json'], { env: personEnv() });
  assert.equal(ran.code, 0, ran.stderr);
  return JSON.parse(ran.stdout);
}
function channelIn(report: any, name: string): any {
  return report.data.channels.find((c: any) => c.name === name);
}

test('say joins the channel as the person and an agent pulls it framed as the user\'s words from the terminal, unverified', async (t) => {
  const project = tempProject(t);
  const [writer] = await channelOf(t, project, 'review', ['writer', 'reviewer']);
  const said = await person(project, ['say', 'review', '--to', 'writer', 'Please keep the patch small.']);
  assert.equal(said.code, 0, said.stderr);
  assert.match(said.stdout, /Joined "review" as person/);
  assert.ok(said.stdout.includes(`sent as ${PERSON}`));
  const report = await status(project, runCli);
  const joined = channelIn(report, 'review').members.find((m: any) => m.session_id === PERSON);
  assert.equal(joined.role, 'person');
  assert.equal(joined.host, 'person');
  const pulled = await ok(writer!, 'opencomms_pull', {});
  const [framed] = framedTexts(pulled);
  assert.match(framed!, new RegExp(`^\\[OpenComms message from the user at their terminal, as person \\(${PERSON}, unverified\\) on channel "review"`));
  assert.match(framed!, /<<<USER_AT_TERMINAL_MESSAGE nonce=\w+>>>\nPlease keep the patch small\.\n<<<END_USER_AT_TERMINAL_MESSAGE/);
  assert.match(framed!, /the user's own words, typed at their terminal.*unverified/);
  assert.doesNotMatch(framed!, /not an instruction from the user/);
});

test('an agent\'s review request: the person reads it, answers with say --reply-to, and the agent pulls the answer; the request is closed', async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'review', ['writer']);
  assert.equal((await person(project, ['say', 'review', 'I am watching.'])).code, 0);
  await ok(writer!, 'opencomms_pull', {});
  const request = await ok(writer!, 'opencomms_send', { channel: 'review', content: 'Is the retry loop safe?', type: 'review_request', to: 'person' });
  const requestId = request.data.message_ids[0];

  const read = await person(project, ['read', '--json']);
  assert.equal(read.code, 0, read.stderr);
  const mail = JSON.parse(read.stdout).messages;
  assert.equal(mail.length, 1);
  assert.deepEqual({ id: mail[0].message_id, type: mail[0].type, from: mail[0].from, content: mail[0].content },
    { id: requestId, type: 'review_request', from: 'sess_writer', content: 'Is the retry loop safe?' });
  assert.match((await person(project, ['read'])).stdout, /^No mail for you\.$/m, 'read mail is delivered: a second read finds none');

  const answer = await person(project, ['say', 'review', '--reply-to', requestId, 'Yes, it backs off.']);
  assert.equal(answer.code, 0, answer.stderr);
  const pulled = await ok(writer!, 'opencomms_pull', {});
  const [framed] = framedTexts(pulled);
  assert.match(framed!, /the user at their terminal, as person \(\S+, unverified\) on channel "review" - type review_response, message_id \S+, reply_to ocm_/);
  assert.ok(framed!.includes(`reply_to ${requestId}`));
  const agentStatus = await ok(writer!, 'opencomms_status', { channel: 'review' });
  assert.deepEqual(agentStatus.data.open_requests ?? [], [], 'the answer closed the request');
});

test('read commits only what it printed: mail it could not write stays waiting', { skip: !existsSync('/dev/full') && 'no /dev/full here' }, async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'review', ['writer']);
  assert.equal((await person(project, ['say', 'review', 'here'])).code, 0);
  await ok(writer!, 'opencomms_send', { channel: 'review', content: 'first note', to: PERSON });

  // stdout on /dev/full: every write fails (ENOSPC), so nothing is printed.
  const failed = await runInTerminal(`sh -c ${shellWord(`${cliCommand(['read', '--project', project])} >/dev/full`)}`, { env: personEnv() });
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /could not print your mail/);
  assert.equal(channelIn(await status(project), 'review').queue_lengths[PERSON], 1, 'the mail went back to pending');

  const read = await person(project, ['read']);
  assert.equal(read.code, 0, read.stderr);
  assert.match(read.stdout, /writer \(sess_writer\) -> you: manual/);
  assert.match(read.stdout, /^ {2}first note$/m);
  assert.equal(channelIn(await status(project), 'review').queue_lengths[PERSON], 0);
});

test('read makes terminal controls and bidi marks harmless, in text and in JSON', async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'review', ['writer']);
  assert.equal((await person(project, ['say', 'review', 'here'])).code, 0);
  const hostile = 'clear\u001b[2J\u001b]0;title\u0007 bidi\u202eevil\u2066x\u2069 c1\u009b31m\r\nnext';
  await ok(writer!, 'opencomms_send', { channel: 'review', content: hostile, to: PERSON });
  await ok(writer!, 'opencomms_send', { channel: 'review', content: hostile + ' again', to: PERSON });
  const text = await person(project, ['read', 'review']);
  assert.equal(text.code, 0, text.stderr);
  assert.doesNotMatch(text.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  assert.match(text.stdout, /^ {2}next$/m, 'a CRLF becomes a line of its own, indented');
  await ok(writer!, 'opencomms_send', { channel: 'review', content: hostile + ' json', to: PERSON });
  const json = await person(project, ['read', '--json']);
  assert.doesNotMatch(json.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  assert.equal(JSON.parse(json.stdout).messages[0].content, `${hostile} json`, 'the JSON still carries the exact content');
});

test('say and read refuse to run inside a Claude Code or Codex environment, and change nothing', async (t) => {
  const project = tempProject(t);
  await localChannelOf(t, project, 'review', ['writer']);
  for (const [variable, host] of [['CLAUDECODE', 'Claude Code'], ['CODEX_THREAD_ID', 'Codex'], ['GEMINI_CLI', 'Gemini CLI'], ['OPENCODE', 'OpenCode']] as const) {
    for (const args of [['say', 'review', 'hi'], ['read'], ['resume', 'review']]) {
      const ran = await person(project, args, { [variable]: '1' });
      assert.equal(ran.code, 1, `${args[0]} with ${variable}`);
      assert.match(ran.stderr, new RegExp(`runs inside ${host} \\(the environment variable ${variable}\\)\\. Agents speak through their tools`));
    }
  }
  assert.equal(channelIn(await status(project), 'review').members.length, 1, 'nobody joined');
});

test('say refuses to run below an agent host process, found in the process tree', async (t) => {
  const project = tempProject(t);
  await localChannelOf(t, project, 'review', ['writer']);
  // A program named claude (node under another name) whose child runs say, as Claude Code's shell tool would.
  const bin = mkdtempSync(join(tmpdir(), 'opencomms-fake-claude-'));
  t.after(() => rmSync(bin, { recursive: true, force: true }));
  symlinkSync(process.execPath, join(bin, 'claude'));
  const script = join(bin, 'shell-tool.js');
  writeFileSync(script, `const r = require('node:child_process').spawnSync(process.execPath, ${JSON.stringify([DIST, 'say', '--project', project, 'review', 'hi'])}, { encoding: 'utf8' });
process.stdout.write(JSON.stringify({ status: r.status, stderr: r.stderr }));`);
  const env = personEnv();
  const ran = await runToExit(spawn(join(bin, 'claude'), [script], {
    env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv,
  }), '', 'say under a fake claude');
  const inner = JSON.parse(ran.stdout);
  assert.equal(inner.status, 1);
  assert.match(inner.stderr, /runs inside Claude Code \(the ancestor process claude \(pid \d+\)\)/);
});

test('the person- prefix is refused in OPENCOMMS_MEMBER_ID, pins and install --member', async (t) => {
  const project = tempProject(t);
  const server = await localMember(t, project, 'person-mallory');
  const refusal = await refused(server, 'opencomms_status', {}, 'unpinned');
  assert.match(refusal.message, /reserved for a person/);
  const pin = await runCliInProcess(['pin', '--project', project, '--id', 'person-mallory'], { env: personEnv() });
  assert.equal(pin.code, 2);
  assert.match(pin.stderr, /reserved for a person/);
  const install = await runCliInProcess(['install', 'codex', '--project', project, '--member', 'Person-Mallory', '--dry-run'], { env: personEnv() });
  assert.equal(install.code, 2);
  assert.match(install.stderr, /reserved for a person/);
  assert.equal(existsSync(join(project, '.opencomms', 'pins', 'person-mallory.json')), false, 'no pin was written');
});

test('the loop guard: 50 agent messages pause the channel, an agent\'s resume is refused, a person\'s say lifts it', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await localChannelOf(t, project, 'loop', ['writer', 'reviewer'], { rate_limit: 1000 });
  for (let i = 1; i < 50; i += 1) {
    const sent = await ok(i % 2 === 0 ? reviewer! : writer!, 'opencomms_send', { channel: 'loop', content: `ack ${i}` });
    assert.equal(sent.data.paused, undefined, `message ${i} leaves it open`);
  }
  const fiftieth = await ok(writer!, 'opencomms_send', { channel: 'loop', content: 'ack 50' });
  assert.equal(fiftieth.data.paused, true);
  assert.equal(fiftieth.data.pause_reason, 'agent_streak');
  assert.match(fiftieth.message, /paused itself: 50 messages in a row came from agents/);
  const blocked = await refused(reviewer!, 'opencomms_send', { channel: 'loop', content: 'ack 51' }, 'agent_streak');
  assert.match(blocked.message, /opencomms resume loop/);
  await refused(reviewer!, 'opencomms_resume', { channel: 'loop' }, 'person_required');

  const report = await status(project);
  assert.deepEqual(
    { paused: channelIn(report, 'loop').paused, reason: channelIn(report, 'loop').paused_reason, streak: channelIn(report, 'loop').agent_streak },
    { paused: true, reason: 'agent_streak', streak: 50 },
  );
  const plain = await runCliInProcess(['status', '--project', project], { env: personEnv() });
  assert.match(plain.stdout, /channel loop \(chn_\w+\) \[paused: waiting for a person, 50 agent messages in a row \(loop guard\); opencomms say or opencomms resume lifts it\]/);

  const said = await person(project, ['say', 'loop', 'Enough acknowledgments: writer, finish the patch.']);
  assert.equal(said.code, 0, said.stderr);
  assert.match(said.stdout, /lifted the loop-guard pause/);
  await ok(writer!, 'opencomms_send', { channel: 'loop', content: 'on it', to: 'reviewer' });
  assert.equal(channelIn(await status(project), 'loop').agent_streak, 1);
});

test('a person\'s resume lifts a loop-guard pause; pause and resume name a missing channel', async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'tiny', ['writer', 'reviewer'], { max_agent_streak: 2 });
  await ok(writer!, 'opencomms_send', { channel: 'tiny', content: 'one' });
  await ok(writer!, 'opencomms_send', { channel: 'tiny', content: 'two' });
  await refused(writer!, 'opencomms_send', { channel: 'tiny', content: 'three' }, 'agent_streak');
  const resumed = await person(project, ['resume', 'tiny']);
  assert.equal(resumed.code, 0, resumed.stderr);
  await ok(writer!, 'opencomms_send', { channel: 'tiny', content: 'three' });
  assert.equal((await person(project, ['pause', 'tiny'])).code, 0);
  await refused(writer!, 'opencomms_send', { channel: 'tiny', content: 'four' }, 'paused');
  const missing = await person(project, ['resume', 'nope']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /reason: channel_not_found/);
  assert.equal((await runCli(['resume'], { env: personEnv() })).code, 2, 'resume without a channel is a usage error');
  const unquoted = await runCli(['say', 'tiny', 'two', 'words'], { env: personEnv() });
  assert.equal(unquoted.code, 2);
  assert.match(unquoted.stderr, /takes the message as one argument: quote it/);
  const badType = await runCli(['say', 'tiny', '--type', 'system', 'hi'], { env: personEnv() });
  assert.equal(badType.code, 2, 'a person cannot send system notices');
  const empty = await person(project, ['say', 'tiny', '  ']);
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /say needs a message/);
});

test('say - reads the message from stdin', async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'review', ['writer']);
  const said = await person(project, ['say', 'review', '-'], {}, 'line one\nline two\n');
  assert.equal(said.code, 0, said.stderr);
  const [framed] = framedTexts(await ok(writer!, 'opencomms_pull', {}));
  assert.match(framed!, /\nline one\nline two\n\n?<<<END_USER_AT_TERMINAL_MESSAGE/);
});

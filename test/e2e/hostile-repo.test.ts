// A repository is untrusted input: it can ship any .opencomms/ tree it likes,
// links included. Whatever it ships, OpenComms must not read or write a file
// outside the project through it; it refuses, naming the entry and the fix.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, tempProject, type Json } from '../helpers/server';
import { callRaw, create, join as joinChannel, member, ok } from './tools-support';

/** A folder outside the project, standing for the victim's home. */
function outsideDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'oc-victim-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Every file under `dir` with its bytes: what must stay exactly as it was. */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    try {
      out[name] = readFileSync(join(dir, name), 'latin1');
    } catch {
      out[name] = '<folder>';
    }
  }
  return out;
}

const BASHRC = 'export PS1="$ "\n# the victim\'s own file\n';

/** Asserts a tool answer is the state_unwritable refusal naming `path`. */
function assertRefusedNaming(raw: Json, path: string): void {
  assert.equal(raw.isError, true, `not refused: ${JSON.stringify(raw.structuredContent)}`);
  const result = raw.structuredContent;
  assert.equal(result.data?.reason, 'state_unwritable', JSON.stringify(result));
  assert.ok(result.message.includes(path), `the message names ${path}: ${result.message}`);
}

/**
 * A project as a hostile repository would ship it: a state.json holding one
 * finished (delivered) envelope of channel `dev`, still waiting to be moved to
 * history by the next save. Returns the channel id.
 */
async function projectWithFinishedEnvelope(t: TestContext, project: string): Promise<string> {
  const alice = await member(t, project, 'sess_alice');
  const bob = await member(t, project, 'sess_bob');
  await create(alice, 'dev', 'writer');
  await joinChannel(bob, 'dev', 'reviewer');
  await ok(alice, 'opencomms_send', { channel: 'dev', to: 'reviewer', content: 'hello' });
  await alice.close();
  await bob.close();
  const statePath = join(project, '.opencomms', 'state.json');
  const state = JSON.parse(readFileSync(statePath, 'utf8'));
  const [id] = Object.keys(state.messages);
  Object.assign(state.messages[id], { delivery_status: 'delivered', delivered_at: Date.now(), attempts: 1, delivery_method: 'pull' });
  for (const queue of Object.keys(state.queues)) state.queues[queue] = [];
  writeFileSync(statePath, JSON.stringify(state));
  rmSync(join(project, '.opencomms', 'history'), { recursive: true, force: true });
  return state.channels.dev.id as string;
}

test('a history log shipped as a link to a file outside the project is never appended to: the first saving call is refused naming it', async (t) => {
  const project = tempProject(t);
  const home = outsideDir(t);
  const bashrc = join(home, '.bashrc');
  writeFileSync(bashrc, BASHRC);
  const channelId = await projectWithFinishedEnvelope(t, project);
  const log = join(project, '.opencomms', 'history', `${channelId}.jsonl`);
  mkdirSync(join(project, '.opencomms', 'history'));
  symlinkSync(bashrc, log);

  const bob = await member(t, project, 'sess_bob');
  const raw = await callRaw(bob, 'opencomms_pull', { channel: 'dev' });
  assertRefusedNaming(raw, log);
  assert.match(raw.structuredContent.message, /link/);
  assert.equal(readFileSync(bashrc, 'utf8'), BASHRC, 'the outside file is byte for byte as it was');
});

test('a history folder shipped as a link to a folder outside the project is never written into', async (t) => {
  const project = tempProject(t);
  const home = outsideDir(t);
  writeFileSync(join(home, '.bashrc'), BASHRC);
  await projectWithFinishedEnvelope(t, project);
  const history = join(project, '.opencomms', 'history');
  symlinkSync(home, history);
  const before = contents(home);

  const bob = await member(t, project, 'sess_bob');
  assertRefusedNaming(await callRaw(bob, 'opencomms_pull', { channel: 'dev' }), history);
  assert.deepEqual(contents(home), before);
});

test('a state.json shipped as a link is neither read nor written through: reads and changes are refused naming it', async (t) => {
  const project = tempProject(t);
  const home = outsideDir(t);
  const alice = await member(t, project, 'sess_alice');
  await create(alice, 'secret', 'writer');
  await alice.close();
  const statePath = join(project, '.opencomms', 'state.json');
  // The outside file is a valid state, so following the link would show it to the model.
  const outside = join(home, 'state.json');
  writeFileSync(outside, readFileSync(statePath));
  rmSync(statePath);
  symlinkSync(outside, statePath);
  const before = contents(home);

  const bob = await member(t, project, 'sess_alice');
  const status = await callRaw(bob, 'opencomms_status', {});
  assertRefusedNaming(status, statePath);
  assert.doesNotMatch(JSON.stringify(status), /secret/, 'nothing of the outside file reaches the model');
  assertRefusedNaming(await callRaw(bob, 'opencomms_create', { channel: 'other', role: 'writer', role_prompt: 'p' }), statePath);
  assert.deepEqual(contents(home), before);
});

test('a pin shipped as a link is not read: the call that needs the identity is refused naming it', async (t) => {
  const project = tempProject(t);
  const home = outsideDir(t);
  const outside = join(home, 'sess_x.json');
  writeFileSync(outside, JSON.stringify({ member_id: 'sess_x', host: 'mcp', saved_at: 1 }));
  mkdirSync(join(project, '.opencomms', 'pins'), { recursive: true });
  const pin = join(project, '.opencomms', 'pins', 'sess_x.json');
  symlinkSync(outside, pin);

  const server = await member(t, project, undefined, 'mcp');
  assertRefusedNaming(await callRaw(server, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'p' }), pin);
});

test('a pins folder shipped as a link is not written into by opencomms pin', async (t) => {
  const project = tempProject(t);
  const home = outsideDir(t);
  mkdirSync(join(project, '.opencomms'));
  const pins = join(project, '.opencomms', 'pins');
  symlinkSync(home, pins);
  const { code, stderr } = await runCli(['pin', '--project', project, '--host', 'mcp', '--id', 'sess_y']);
  assert.notEqual(code, 0);
  assert.ok(stderr.includes(pins), stderr);
  assert.deepEqual(readdirSync(home), []);
});

test('an archives folder shipped as a link is not written into by save_session', async (t) => {
  const project = tempProject(t);
  const home = outsideDir(t);
  const alice = await member(t, project, 'sess_alice');
  await create(alice, 'dev', 'writer');
  const archives = join(project, '.opencomms', 'archives');
  symlinkSync(home, archives);
  assertRefusedNaming(await callRaw(alice, 'opencomms_save_session', { channel: 'dev', summary: 'done' }), archives);
  assert.deepEqual(readdirSync(home), []);
});

test('an archive shipped as a link is not read: listing the archives is refused naming it', async (t) => {
  const project = tempProject(t);
  const home = outsideDir(t);
  const alice = await member(t, project, 'sess_alice');
  await create(alice, 'dev', 'writer');
  await ok(alice, 'opencomms_save_session', { channel: 'dev', summary: 'the outside summary' });
  const archives = join(project, '.opencomms', 'archives');
  const [name] = readdirSync(archives);
  const outside = join(home, name);
  writeFileSync(outside, readFileSync(join(archives, name)));
  rmSync(join(archives, name));
  symlinkSync(outside, join(archives, name));

  const raw = await callRaw(alice, 'opencomms_archive', {});
  assertRefusedNaming(raw, join(archives, name));
  assert.doesNotMatch(JSON.stringify(raw), /outside summary/);
});

test('a .opencomms folder shipped as a link to a folder outside the project is refused, and nothing is left there', async (t) => {
  const project = tempProject(t);
  const home = outsideDir(t);
  writeFileSync(join(home, '.bashrc'), BASHRC);
  const stateDir = join(project, '.opencomms');
  symlinkSync(home, stateDir);
  const before = contents(home);
  const alice = await member(t, project, 'sess_alice');
  assertRefusedNaming(await callRaw(alice, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'p' }), stateDir);
  assert.deepEqual(contents(home), before);
});

// The commands our output suggests are ones the person can paste: from a
// clone (`node dist/opencomms.js …`, where `opencomms` is no command at all)
// they name the file as it was run; through an `opencomms` on PATH that is
// this file, they say `opencomms …`. Real processes, run from a clone-like
// folder with a copy of the shipped bundle.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { userInfo } from 'node:os';
import { personMemberId } from '../../src/engine/person';
import { spawn } from 'node:child_process';
import { DIST, runToExit, tempProject } from '../helpers/server';
import { hasScript, runInTerminal, shellWord } from '../helpers/person-terminal';
import { localChannelOf, ok } from './tools-support';

const PERSON = personMemberId(userInfo().username);
const PERSON_ENV = { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined, OPENCOMMS_PROJECT_ID: undefined };

/** A folder laid out like a clone: dist/opencomms.js, a copy of the shipped bundle. */
function cloneLike(t: TestContext): string {
  const clone = join(tempProject(t), 'clone');
  mkdirSync(join(clone, 'dist'), { recursive: true });
  copyFileSync(DIST, join(clone, 'dist', 'opencomms.js'));
  return clone;
}

/** Mail from an agent waiting for the person in channel review of `project`. */
async function mailForPerson(t: TestContext, project: string, clone: string): Promise<void> {
  const [writer] = await localChannelOf(t, project, 'review', ['writer']);
  const said = await runInTerminal(`${shellWord(process.execPath)} dist/opencomms.js say review --project ${shellWord(project)} here`, { cwd: clone, env: PERSON_ENV });
  assert.equal(said.code, 0, said.stderr);
  await ok(writer!, 'opencomms_send', { channel: 'review', content: 'please look', to: PERSON });
}

test('read run as node dist/opencomms.js from a clone suggests the answer as node dist/opencomms.js say', { skip: !hasScript() && 'no util-linux script here' }, async (t) => {
  const clone = cloneLike(t);
  const project = tempProject(t);
  await mailForPerson(t, project, clone);
  const read = await runInTerminal(`${shellWord(process.execPath)} dist/opencomms.js read --project ${shellWord(project)}`, { cwd: clone, env: PERSON_ENV });
  assert.equal(read.code, 0, read.stderr);
  assert.match(read.stdout, /^Answer one with: node dist\/opencomms\.js say review --reply-to /m);
});

test('read run through an opencomms on PATH that is this file suggests opencomms say', { skip: !hasScript() && 'no util-linux script here' }, async (t) => {
  const clone = cloneLike(t);
  const project = tempProject(t);
  await mailForPerson(t, project, clone);
  const bin = join(clone, 'bin');
  mkdirSync(bin);
  symlinkSync(join(clone, 'dist', 'opencomms.js'), join(bin, 'opencomms'));
  const read = await runInTerminal(`opencomms read --project ${shellWord(project)}`, { cwd: clone, env: { ...PERSON_ENV, PATH: `${bin}${delimiter}${process.env.PATH}` } });
  assert.equal(read.code, 0, read.stderr);
  assert.match(read.stdout, /^Answer one with: opencomms say review --reply-to /m);
});

test('status and a person command\'s refusal name the file as run from elsewhere, and opencomms on PATH only when it is this file', async (t) => {
  const clone = cloneLike(t);
  const project = tempProject(t);
  const script = join(clone, 'dist', 'opencomms.js');
  // Another program called opencomms on PATH is not this one: suggesting it would run that program.
  const bin = join(clone, 'bin');
  mkdirSync(bin);
  symlinkSync(DIST, join(bin, 'opencomms'));
  const env = { ...PERSON_ENV, PATH: `${bin}${delimiter}${process.env.PATH}` };
  const status = await runInTerminal(`${shellWord(process.execPath)} ${shellWord(script)} status --project ${shellWord(project)}`, { cwd: project, env });
  assert.equal(status.code, 0, status.stderr);
  assert.ok(status.stdout.includes(`(node ${script} task)`), status.stdout);
  // Under no terminal of a person (script's stdin is a file, but `setsid` gives no controlling terminal), resume refuses and names itself as run.
  const refused = await runInTerminal(`setsid ${shellWord(process.execPath)} dist/opencomms.js resume review --project ${shellWord(project)}`, { cwd: clone, env });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /node dist\/opencomms\.js resume is a person's action/);
  assert.match(refused.stderr, /reason: no_person_terminal/);
});

test('install run as node dist/opencomms.js suggests its --apply and uninstall in that form', async (t) => {
  const clone = cloneLike(t);
  const project = tempProject(t);
  const home = join(tempProject(t), 'home');
  mkdirSync(home);
  const ran = await runToExit(spawn(process.execPath, ['dist/opencomms.js', 'install', 'codex', '--project', project], {
    cwd: clone, env: { ...process.env, HOME: home, CODEX_HOME: undefined, OPENCOMMS_MEMBER_ID: undefined }, stdio: ['pipe', 'pipe', 'pipe'],
  }), '', 'install codex');
  assert.equal(ran.code, 0, ran.stderr);
  assert.ok(ran.stdout.includes('Run `node dist/opencomms.js install codex --apply`'), ran.stdout);
  assert.ok(ran.stdout.includes('`node dist/opencomms.js uninstall codex` takes them out again'), ran.stdout);
});

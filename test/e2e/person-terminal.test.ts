// A person action needs the person's terminal, through real processes: each
// action without a controlling terminal (as an agent's shell tool runs it),
// detached with `setsid -f`, with its environment cleared (`env -i`), in the
// background of a terminal, or double-forked out of a terminal whose session
// an agent host started, is refused and changes nothing; at a terminal of its
// own (`script`) it acts, and each action is recorded with that terminal and
// shown in `watch`. Agent ids that imitate the person's are refused.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { personMemberId } from '../../src/engine/person';
import { DIST, runCli, runToExit, tempProject } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { cliCommand, hasScript, runCliInTerminal, runInTerminal, shellWord } from '../helpers/person-terminal';
import { startWatch } from '../watch/watch-process';
import { localChannelOf, member, ok, refused } from './tools-support';

const PERSON = personMemberId(userInfo().username);
const HOST_VARIABLES = [
  'CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_MESSAGING_SOCKET', 'CODEX_THREAD_ID', 'CODEX_SANDBOX',
  'CODEX_SANDBOX_NETWORK_DISABLED', 'CODEX_CI', 'GEMINI_CLI', 'OPENCODE', 'OPENCODE_SESSION_ID',
];
const NO_SCRIPT = !hasScript() && 'script (util-linux) is not installed: a person action needs a terminal to test with';

function personEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined, OPENCOMMS_PROJECT_ID: undefined };
  for (const name of HOST_VARIABLES) env[name] = undefined;
  return env;
}

async function statusOf(project: string): Promise<any> {
  const ran = await runCliInProcess(['status', '--project', project, '--json'], { env: personEnv() });
  assert.equal(ran.code, 0, ran.stderr);
  return ran.stdout === '' ? undefined : JSON.parse(ran.stdout).data.channels[0];
}

function stateOf(project: string): any {
  return JSON.parse(readFileSync(join(project, '.opencomms', 'state.json'), 'utf8'));
}

/** A loop-guard pause: the one agent message allowed, then a refused one. */
async function tripGuard(t: TestContext, project: string): Promise<void> {
  const [writer] = await localChannelOf(t, project, 'loop', ['writer', 'reviewer'], { max_agent_streak: 1 });
  await ok(writer!, 'opencomms_send', { channel: 'loop', content: 'one' });
  await refused(writer!, 'opencomms_send', { channel: 'loop', content: 'two' }, 'agent_streak');
}

function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-person-tty-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('every person action without a controlling terminal is refused with no_person_terminal and changes nothing', async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'loop', ['writer', 'reviewer'], { max_agent_streak: 1 });
  await ok(writer!, 'opencomms_reserve', { channel: 'loop', paths: ['src/a.ts'] });
  await ok(writer!, 'opencomms_send', { channel: 'loop', content: 'one' });
  await refused(writer!, 'opencomms_send', { channel: 'loop', content: 'two' }, 'agent_streak');
  const held = JSON.parse((await runCli(['reservations', '--project', project, '--json'], { env: personEnv() })).stdout).reservations;
  // Run as an agent's shell tool runs a command: a child with pipes and no terminal, the host variables cleared.
  for (const args of [['say', 'loop', 'hi'], ['read'], ['pause', 'loop'], ['resume', 'loop'], ['reservations', '--release', held[0].id],
    ['reservations', '--release-member', 'sess_writer']]) {
    const ran = await runCli([...args, '--project', project], { env: personEnv() });
    assert.equal(ran.code, 1, `${args.join(' ')}: ${ran.stderr}`);
    assert.match(ran.stderr, /\(reason: no_person_terminal\)/, args.join(' '));
  }
  const channel = await statusOf(project);
  assert.deepEqual({ paused: channel.paused, reason: channel.paused_reason, members: channel.members.length }, { paused: true, reason: 'agent_streak', members: 2 });
  assert.equal(JSON.parse((await runCli(['reservations', '--project', project, '--json'], { env: personEnv() })).stdout).reservations.length, 1);
  assert.equal(stateOf(project).person_actions, undefined, 'nothing was recorded');
});

test('env -i gives no terminal: say under a cleared environment is refused', async (t) => {
  const project = tempProject(t);
  await localChannelOf(t, project, 'dev', ['writer']);
  const ran = await runToExit(spawn('env', ['-i', `PATH=${process.env.PATH ?? '/usr/bin:/bin'}`, process.execPath, DIST, 'say', '--project', project, 'dev', 'hi']), '', 'env -i say');
  assert.equal(ran.code, 1, ran.stderr);
  assert.match(ran.stderr, /\(reason: no_person_terminal\)/);
  assert.equal((await statusOf(project)).members.length, 1, 'nobody joined');
});

test('at a terminal of its own say acts, and the message and the record carry that terminal', { skip: NO_SCRIPT }, async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'dev', ['writer']);
  const said = await runCliInTerminal(['say', '--project', project, 'dev', 'from my terminal'], { env: personEnv() });
  assert.equal(said.code, 0, said.stderr);
  const state = stateOf(project);
  const [envelope] = Object.values(state.messages) as any[];
  assert.equal(envelope.sender_session_id, PERSON);
  assert.match(envelope.person_terminal.tty, /^\/dev\/pts\/\d+$/);
  assert.match(envelope.person_terminal.session_leader, /^\S+ \(pid \d+\)$/);
  assert.deepEqual(state.person_actions.map((a: any) => [a.action, a.person_id, a.channel, a.terminal.tty]), [['say', PERSON, 'dev', envelope.person_terminal.tty]]);
  assert.equal((await ok(writer!, 'opencomms_pull', {})).data.messages.length, 1);
});

test('env -i at the person\'s terminal keeps the terminal: say acts', { skip: NO_SCRIPT }, async (t) => {
  const project = tempProject(t);
  await localChannelOf(t, project, 'dev', ['writer']);
  const said = await runInTerminal(`env -i PATH=${shellWord(process.env.PATH ?? '/usr/bin:/bin')} ${cliCommand(['say', '--project', project, 'dev', 'hi'])}`);
  assert.equal(said.code, 0, said.stderr);
});

test('say detached from the terminal with setsid -f is refused', { skip: NO_SCRIPT }, async (t) => {
  const project = tempProject(t);
  await localChannelOf(t, project, 'dev', ['writer']);
  const dir = scratch(t);
  const [out, rc, fifo] = ['out', 'rc', 'done'].map((name) => join(dir, name)) as [string, string, string];
  execFileSync('mkfifo', [fifo]);
  // The terminal's shell waits on the fifo until the detached say has finished, so the terminal outlives it.
  const detached = `${cliCommand(['say', '--project', project, 'dev', 'hi'])} >${shellWord(out)} 2>&1; echo $? >${shellWord(rc)}; echo >${shellWord(fifo)}`;
  const ran = await runInTerminal(`sh -c ${shellWord(`setsid -f sh -c ${shellWord(detached)}; cat ${shellWord(fifo)} >/dev/null`)}`, { env: personEnv() });
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(readFileSync(rc, 'utf8').trim(), '1', readFileSync(out, 'utf8'));
  assert.match(readFileSync(out, 'utf8'), /no controlling terminal.*\(reason: no_person_terminal\)/s);
  assert.equal((await statusOf(project)).members.length, 1, 'nobody joined');
});

test('resume in the background of a terminal is refused', { skip: NO_SCRIPT }, async (t) => {
  const project = tempProject(t);
  await tripGuard(t, project);
  // set -m: job control, so the & job gets a process group of its own, not the terminal's foreground one.
  const ran = await runInTerminal(`sh -c ${shellWord(`set -m; ${cliCommand(['resume', '--project', project, 'loop'])} & wait $!`)}`, { env: personEnv() });
  assert.equal(ran.code, 1, ran.stderr);
  assert.match(ran.stderr, /runs in the background of \/dev\/pts\/\d+.*\(reason: no_person_terminal\)/s);
  assert.equal((await statusOf(project)).paused, true);
});

test('a double fork out of a terminal whose session an agent host started is refused, naming the host', { skip: NO_SCRIPT }, async (t) => {
  const project = tempProject(t);
  await tripGuard(t, project);
  const dir = scratch(t);
  const [out, rc, fifo] = ['out', 'rc', 'done'].map((name) => join(dir, name)) as [string, string, string];
  execFileSync('mkfifo', [fifo]);
  // A program named claude (node under another name) opens a terminal with `script`, as a host's pty tool does;
  // in it, ( … & ) orphans resume (its parent dies at once), while the terminal's shell waits on the fifo.
  symlinkSync(process.execPath, join(dir, 'claude'));
  const orphan = `${cliCommand(['resume', '--project', project, 'loop'])} >${shellWord(out)} 2>&1; echo $? >${shellWord(rc)}; echo >${shellWord(fifo)}`;
  const inTerminal = `(sh -c ${shellWord(orphan)} &); cat ${shellWord(fifo)} >/dev/null`;
  const tool = join(dir, 'pty-tool.js');
  writeFileSync(tool, `const r = require('node:child_process').spawnSync('script', ['-qec', ${JSON.stringify(inTerminal)}, '/dev/null'], { stdio: 'ignore', env: { ...process.env, SHELL: '/bin/sh' } });
process.exit(r.status ?? 99);`);
  const env = { ...process.env, ...personEnv() };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const ran = await runToExit(spawn(join(dir, 'claude'), [tool], { env: env as NodeJS.ProcessEnv }), '', 'a pty under a fake claude');
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(readFileSync(rc, 'utf8').trim(), '1', readFileSync(out, 'utf8'));
  assert.match(readFileSync(out, 'utf8'), /its terminal \/dev\/pts\/\d+ belongs to a session started inside Claude Code \(the ancestor process claude \(pid \d+\)\).*\(reason: agent_host\)/s);
  assert.equal((await statusOf(project)).paused, true, 'the loop guard still holds');
});

test('a double fork out of an agent host running in the person\'s own terminal is refused: the host leads the foreground group', { skip: NO_SCRIPT }, async (t) => {
  const project = tempProject(t);
  await tripGuard(t, project);
  const dir = scratch(t);
  const [out, rc, fifo] = ['out', 'rc', 'done'].map((name) => join(dir, name)) as [string, string, string];
  execFileSync('mkfifo', [fifo]);
  // The person's shell (job control on) runs claude as the terminal's foreground job, as a person starts
  // Claude Code; its tool's child, not detached, shares claude's process group, and ( … & ) orphans resume,
  // so neither its ancestry nor the terminal's session leads to claude: only the foreground group does.
  symlinkSync(process.execPath, join(dir, 'claude'));
  const orphan = `${cliCommand(['resume', '--project', project, 'loop'])} >${shellWord(out)} 2>&1; echo $? >${shellWord(rc)}; echo >${shellWord(fifo)}`;
  const tool = join(dir, 'shell-tool.js');
  writeFileSync(tool, `require('node:child_process').spawnSync('sh', ['-c', ${JSON.stringify(`(sh -c ${shellWord(orphan)} &); cat ${shellWord(fifo)} >/dev/null`)}], { stdio: 'ignore' });`);
  const ran = await runInTerminal(`sh -c ${shellWord(`set -m; ${shellWord(join(dir, 'claude'))} ${shellWord(tool)}`)}`, { env: personEnv() });
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(readFileSync(rc, 'utf8').trim(), '1', readFileSync(out, 'utf8'));
  assert.match(readFileSync(out, 'utf8'), /its terminal \/dev\/pts\/\d+ is running, in the foreground, Claude Code \(the ancestor process claude \(pid \d+\)\).*\(reason: agent_host\)/s);
  assert.equal((await statusOf(project)).paused, true, 'the loop guard still holds');
});

test('watch shows each person action with the terminal it came from: say, pause, resume, read, release', { skip: NO_SCRIPT }, async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'dev', ['writer']);
  await ok(writer!, 'opencomms_reserve', { channel: 'dev', paths: ['src/a.ts'] });
  const watch = startWatch(t, ['--project', project, '--json'], personEnv());
  await watch.event('the watch start', (e) => e.event === 'watching');
  const person = async (...args: string[]): Promise<void> => {
    const ran = await runCliInTerminal([...args, '--project', project], { env: personEnv() });
    assert.equal(ran.code, 0, `${args.join(' ')}: ${ran.stderr}`);
  };
  await person('say', 'dev', 'hello');
  await ok(writer!, 'opencomms_send', { channel: 'dev', content: 'for you', to: PERSON });
  await person('pause', 'dev');
  await person('resume', 'dev');
  await person('read');
  const [held] = JSON.parse((await runCli(['reservations', '--project', project, '--json'], { env: personEnv() })).stdout).reservations;
  await person('reservations', '--release', held.id);
  const actions = await watch.waitFor('five person actions', () => {
    const found = watch.lines.map((l) => JSON.parse(l)).filter((e) => e.event === 'person_action');
    return found.length >= 5 ? found : undefined;
  });
  assert.deepEqual(actions.map((a: any) => a.action), ['say', 'pause', 'resume', 'read', 'release']);
  for (const action of actions) {
    assert.equal(action.person_id, PERSON);
    assert.match(action.tty, /^\/dev\/pts\/\d+$/);
  }
  assert.match(actions[4].detail, new RegExp(`^${held.id} \\(src/a\\.ts, held by sess_writer\\)$`));

  const lines = startWatch(t, ['--project', project], personEnv());
  await lines.matching(/watching /);
  await person('say', 'dev', 'again');
  assert.match(await lines.matching(/ say on dev: /), new RegExp(`${PERSON} say on dev: ocm_\\w+ \\[terminal /dev/pts/\\d+, session of \\S+ \\(pid \\d+\\)\\]`));
});

test('agent ids that imitate the person\'s (person_root, any case or separator) are refused in OPENCOMMS_MEMBER_ID, pins and install --member', async (t) => {
  const project = tempProject(t);
  for (const id of ['person_root', 'Person_root', 'PERSON-x', 'person__root', 'person']) {
    const server = await member(t, project, id);
    const refusal = await refused(server, 'opencomms_status', {}, 'unpinned');
    assert.match(refusal.message, /reserved for a person/, id);
    const pin = await runCli(['pin', '--project', project, '--id', id], { env: personEnv() });
    assert.equal(pin.code, 2, id);
    const install = await runCli(['install', 'codex', '--project', project, '--member', id, '--dry-run'], { env: personEnv() });
    assert.equal(install.code, 2, id);
    assert.match(install.stderr, /reserved for a person/, id);
  }
  assert.deepEqual(existsSync(join(project, '.opencomms', 'pins')) ? readdirSync(join(project, '.opencomms', 'pins')) : [], [], 'no pin was written');
  assert.equal((await runCli(['pin', '--project', project, '--id', 'personable'], { env: personEnv() })).code, 0, 'an id that only starts with the word is an agent\'s');
});

test('a pin a repository ships under an id that imitates the person\'s is never adopted by a session', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, '.opencomms', 'pins'), { recursive: true });
  writeFileSync(join(project, '.opencomms', 'pins', 'Person_root.json'), JSON.stringify({ member_id: 'Person_root', host: 'mcp', saved_at: 1 }));
  const server = await member(t, project, undefined);
  await ok(server, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'w' });
  const channel = await statusOf(project);
  assert.deepEqual(channel.members.map((m: any) => m.session_id).filter((id: string) => /^person/i.test(id)), []);
});

// A person acting from `opencomms watch`, in a real terminal: tmux gives the
// watch a pty, send-keys types as a person would, capture-pane reads the
// screen back. Answer the selected message, pause and resume a channel,
// release a reservation, write to one member, quit; and the agents see each
// action. Plus `watch --notify`, which needs no terminal. The tmux tests are
// skipped, saying so, where tmux is not installed.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { personMemberId } from '../../src/engine/person';
import { DIST, runCli, tempProject, WAIT_MS } from '../helpers/server';
import { runCliInTerminal } from '../helpers/person-terminal';
import { until } from '../helpers/wait';
import { startWatch, watchEnv } from '../watch/watch-process';
import { create, framedTexts, member, ok, refused } from './tools-support';

const PERSON = personMemberId(userInfo().username);
const POLL_MS = 50;
const HOST_VARIABLES = [
  'CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_MESSAGING_SOCKET', 'CODEX_THREAD_ID', 'CODEX_SANDBOX',
  'CODEX_SANDBOX_NETWORK_DISABLED', 'CODEX_CI', 'GEMINI_CLI', 'OPENCODE', 'OPENCODE_SESSION_ID',
];

/** A terminal's environment with no agent host in it. */
function personEnv(): NodeJS.ProcessEnv {
  const env = watchEnv();
  for (const name of HOST_VARIABLES) delete env[name];
  return env;
}

const hasTmux = (): boolean => spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;

/** A tmux server on its own socket, gone after the test. */
function privateTmux(t: TestContext, env: NodeJS.ProcessEnv): (...args: string[]) => string {
  const socket = `opencomms-person-${process.pid}-${Date.now().toString(36)}`;
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env, timeout: WAIT_MS });
  t.after(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  });
  return tmux;
}

/** Re-reads the pane until `check` holds; fails after WAIT_MS showing the last screen. */
async function untilScreen(tmux: (...args: string[]) => string, what: string, check: (screen: string) => boolean): Promise<string> {
  let screen = '';
  await until(what, () => {
    screen = tmux('capture-pane', '-p', '-t', 'watch');
    return check(screen);
  }, { timeoutMs: WAIT_MS, everyMs: POLL_MS, lastSeen: () => screen });
  return screen;
}

/** Starts `opencomms watch` in a 140x40 tmux pane; the pane stays after the watch ends, with its exit status. */
function watchInTmux(t: TestContext, project: string, extraEnv: Record<string, string> = {}): (...args: string[]) => string {
  const tmux = privateTmux(t, { ...personEnv(), ...extraEnv });
  const script = join(project, 'run-watch.sh');
  writeFileSync(script, `${JSON.stringify(process.execPath)} ${JSON.stringify(DIST)} watch --project ${JSON.stringify(project)}\necho "watch exited with status $?"\n`);
  tmux('new-session', '-d', '-s', 'watch', '-x', '140', '-y', '40', `bash ${JSON.stringify(script)}`);
  tmux('set-option', '-w', '-t', 'watch', 'remain-on-exit', 'on');
  return tmux;
}

async function say(project: string, ...args: string[]): Promise<void> {
  const ran = await runCliInTerminal(['say', '--project', project, ...args], { env: personEnv() as Record<string, string> });
  assert.equal(ran.code, 0, ran.stderr);
}

test('from the watch view a person answers the selected request, pauses and resumes, releases a reservation, writes to a member and quits', async (t) => {
  if (!hasTmux()) {
    t.skip('tmux is not installed: the person\'s keys in watch need a real terminal to test');
    return;
  }
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  await create(writer, 'review', 'writer');
  await ok(reviewer, 'opencomms_join', { channel: 'review', role: 'reviewer', role_prompt: 'r' });
  await say(project, 'review', 'I am watching this one.');
  await ok(writer, 'opencomms_pull', {});
  await ok(reviewer, 'opencomms_pull', {});
  const request = await ok(writer, 'opencomms_send', { channel: 'review', content: 'Is the retry safe?', type: 'review_request', to: 'person' });
  const requestId: string = request.data.message_ids[0];
  await ok(writer, 'opencomms_reserve', { channel: 'review', paths: ['src/retry.ts'], reason: 'fixing the retry' });

  const tmux = watchInTmux(t, project);
  let screen = await untilScreen(tmux, 'the person\'s waiting request, first on the screen', (s) => s.includes(`MAIL FOR YOU (${PERSON}): 1 waiting`));
  assert.ok(screen.indexOf('MAIL FOR YOU') < screen.indexOf('channel review ('), 'the person\'s mail comes before the channels');
  assert.equal(screen.includes('Is the retry safe?'), false, 'content stays off the screen (read delivers it)');

  // j selects the first row: the waiting request. r answers it.
  tmux('send-keys', '-t', 'watch', 'j');
  await untilScreen(tmux, 'the request selected', (s) => new RegExp(`^> .*review_request ${requestId}`, 'm').test(s));
  tmux('send-keys', '-t', 'watch', 'r');
  await untilScreen(tmux, 'the reply prompt', (s) => /reply to writer on review: _$/m.test(s));
  tmux('send-keys', '-t', 'watch', '-l', 'Yes, it backs off.');
  tmux('send-keys', '-t', 'watch', 'Enter');
  await untilScreen(tmux, 'the reply sent', (s) => /person -> writer review_response/.test(s));
  const [answer] = framedTexts(await ok(writer, 'opencomms_pull', {}));
  assert.match(answer!, new RegExp(`from the user at their terminal, as person \\(${PERSON}, unverified\\).*type review_response.*reply_to ${requestId}`));
  assert.match(answer!, /\nYes, it backs off\.\n/);
  assert.deepEqual((await ok(writer, 'opencomms_status', { channel: 'review' })).data.you_are_waiting_for ?? [], [], 'the answer closed the request');

  // The next row is the channel: p pauses it, p again resumes it.
  tmux('send-keys', '-t', 'watch', 'j');
  await untilScreen(tmux, 'the channel selected', (s) => /^> channel review \(/m.test(s));
  tmux('send-keys', '-t', 'watch', 'p');
  await untilScreen(tmux, 'the channel paused', (s) => /^> channel review \(chn_\w+\) \[paused\]/m.test(s));
  await refused(reviewer, 'opencomms_send', { channel: 'review', content: 'held?', to: 'writer' }, 'paused');
  tmux('send-keys', '-t', 'watch', 'p');
  await untilScreen(tmux, 'the channel resumed', (s) => /^> channel review \(chn_\w+\)$/m.test(s));
  await ok(reviewer, 'opencomms_send', { channel: 'review', content: 'open again', to: 'writer' });

  // Then the reservation: x asks, y releases.
  tmux('send-keys', '-t', 'watch', 'j');
  await untilScreen(tmux, 'the reservation selected', (s) => /^> reserved src\/retry\.ts by writer/m.test(s));
  tmux('send-keys', '-t', 'watch', 'x');
  await untilScreen(tmux, 'the release question', (s) => /release src\/retry\.ts held by writer\? \(y\/n\)/.test(s));
  tmux('send-keys', '-t', 'watch', 'y');
  await untilScreen(tmux, 'the release done', (s) => /Released 1 reservation/.test(s));
  const held = await runCli(['reservations', '--project', project, '--json'], { env: personEnv() as Record<string, string> });
  assert.deepEqual(JSON.parse(held.stdout).reservations, []);

  // w writes in the selected row's channel; @role addresses one member.
  tmux('send-keys', '-t', 'watch', 'w');
  await untilScreen(tmux, 'the write prompt', (s) => /say in review \(start with @role for one member\): _$/m.test(s));
  tmux('send-keys', '-t', 'watch', '-l', '@reviewer please look at the tests');
  tmux('send-keys', '-t', 'watch', 'Enter');
  await untilScreen(tmux, 'the message sent', (s) => /^Message queued for reviewer \(sess_reviewer\)/m.test(s));
  const [note] = framedTexts(await ok(reviewer, 'opencomms_pull', {}));
  assert.match(note!, /\nplease look at the tests\n/);
  assert.equal(framedTexts(await ok(writer, 'opencomms_pull', {})).some((f) => f.includes('please look at the tests')), false, 'only the member named');

  // Esc cancels a prompt without sending; q quits with status 0.
  tmux('send-keys', '-t', 'watch', 'w');
  await untilScreen(tmux, 'the write prompt again', (s) => /say in review .*: _$/m.test(s));
  tmux('send-keys', '-t', 'watch', '-l', 'never sent');
  tmux('send-keys', '-t', 'watch', 'Escape');
  await untilScreen(tmux, 'the prompt cancelled', (s) => /^Cancelled\.$/m.test(s));
  tmux('send-keys', '-t', 'watch', 'q');
  screen = await untilScreen(tmux, 'the exit status line', (s) => /watch exited with status \d+/.test(s));
  assert.match(screen, /watch exited with status 0$/m);
  assert.equal((await ok(reviewer, 'opencomms_pull', {})).data.messages.length, 0, 'the cancelled text was never sent');
});

test('inside an agent host the watch view still shows everything, but its keys refuse to act', async (t) => {
  if (!hasTmux()) {
    t.skip('tmux is not installed: the person\'s keys in watch need a real terminal to test');
    return;
  }
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'solo', 'writer');
  const tmux = watchInTmux(t, project, { CLAUDECODE: '1' });
  await untilScreen(tmux, 'the channel', (s) => /channel solo \(/.test(s));
  tmux('send-keys', '-t', 'watch', 'j');
  tmux('send-keys', '-t', 'watch', 'p');
  await untilScreen(tmux, 'the refusal', (s) => /runs inside Claude Code \(the environment variable CLAUDECODE\)/.test(s));
  const report = JSON.parse((await runCli(['status', '--project', project, '--json'], { env: personEnv() as Record<string, string> })).stdout);
  assert.equal(report.data.channels[0].paused, false, 'nothing was paused');
  tmux('send-keys', '-t', 'watch', 'C-c');
  assert.match(await untilScreen(tmux, 'the exit', (s) => /watch exited with status \d+/.test(s)), /watch exited with status 0$/m);
});

test('v shows the selected message\'s text under the rows, harmless, without taking it; v hides it again', async (t) => {
  if (!hasTmux()) {
    t.skip('tmux is not installed: the person\'s keys in watch need a real terminal to test');
    return;
  }
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'review', 'writer');
  await say(project, 'review', 'I am watching this one.');
  await ok(writer, 'opencomms_pull', {});
  const hostile = 'Is the retry safe?\u001b[2J\u001b]2;pwned\u0007\nSecond line \u202eesrever\u202c here';
  const request = await ok(writer, 'opencomms_send', { channel: 'review', content: hostile, type: 'review_request', to: 'person' });
  const requestId: string = request.data.message_ids[0];
  const tmux = watchInTmux(t, project);
  await untilScreen(tmux, 'the person\'s waiting request', (s) => s.includes(`MAIL FOR YOU (${PERSON}): 1 waiting`));
  tmux('send-keys', '-t', 'watch', 'v');
  await untilScreen(tmux, 'the hint to select first', (s) => /^Select a message first \(j\/k\), then v shows its text\.$/m.test(s));
  tmux('send-keys', '-t', 'watch', 'j');
  await untilScreen(tmux, 'the request selected', (s) => new RegExp(`^> .*review_request ${requestId}`, 'm').test(s));
  tmux('send-keys', '-t', 'watch', 'v');
  const screen = await untilScreen(tmux, 'the text shown', (s) => /^ {2}\| Second line/m.test(s));
  // The header wraps at the pane's 140 columns.
  assert.match(screen.replace(/\n(?! {2}\|)/g, ''), new RegExp(`text of review_request ${requestId}, .* on review: writer \\(sess_writer\\) -> person \\(${PERSON}\\), pending; still waiting for you until .* read takes it`));
  assert.match(screen, /^ {2}\| Is the retry safe\?\uFFFD\[2J\uFFFD\]2;pwned\uFFFD$/m);
  assert.match(screen, /^ {2}\| Second line \uFFFDesrever\uFFFD here$/m);
  assert.match(screen, /^ {2}\(end of the text; v or Esc hides it\)$/m);
  assert.ok(screen.includes('OpenComms watch'), 'the escapes in the text did not clear the screen');
  assert.equal(tmux('display-message', '-p', '-t', 'watch', '#{pane_title}').includes('pwned'), false, 'nor set the title');
  tmux('send-keys', '-t', 'watch', 'v');
  // Shown is not read: the request still waits for the person.
  const hidden = await untilScreen(tmux, 'the text hidden', (s) => !s.includes('Second line'));
  assert.ok(hidden.includes(`MAIL FOR YOU (${PERSON}): 1 waiting`), hidden);
  tmux('send-keys', '-t', 'watch', 'q');
  assert.match(await untilScreen(tmux, 'the exit', (s) => /watch exited with status \d+/.test(s)), /watch exited with status 0$/m);
});

test('watch --notify runs its command with channel, sender and kind (never the content) for the person\'s mail and a loop-guard pause', async (t) => {
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'loop', 'writer', { max_agent_streak: 3 });
  const reviewer = await member(t, project, 'sess_reviewer');
  await ok(reviewer, 'opencomms_join', { channel: 'loop', role: 'reviewer', role_prompt: 'r' });
  await say(project, 'loop', 'hello');
  // The notifier is a node script that appends its arguments, one call per line.
  const log = join(project, 'notified.log');
  const notifier = join(project, 'notifier.js');
  writeFileSync(notifier, `require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');`);
  const watch = startWatch(t, ['--project', project, '--json', '--notify', `${process.execPath} ${notifier} fixed-arg`], personEnv());
  await watch.event('the watch start', (e) => e.event === 'watching');

  await ok(writer, 'opencomms_send', { channel: 'loop', content: 'secret plan for the person', to: 'person' });
  await ok(writer, 'opencomms_send', { channel: 'loop', content: 'two', to: 'reviewer' });
  const third = await ok(reviewer, 'opencomms_send', { channel: 'loop', content: 'three', to: 'writer' });
  assert.equal(third.data.pause_reason, 'agent_streak');
  await watch.event('the pause event with its reason', (e) => e.event === 'paused' && e.reason === 'agent_streak');
  const calls = await until('two notifications', () => {
    let text = '';
    try {
      text = readFileSync(log, 'utf8');
    } catch {
      return undefined;
    }
    const lines = text.trim().split('\n').filter((l) => l !== '');
    return lines.length >= 2 ? lines.map((l) => JSON.parse(l) as string[]) : undefined;
  }, { timeoutMs: WAIT_MS });
  assert.deepEqual(calls.sort(), [['fixed-arg', 'loop', 'loop-guard', 'paused'], ['fixed-arg', 'loop', 'sess_writer', 'manual']].sort());
  assert.equal(readFileSync(log, 'utf8').includes('secret'), false, 'the content is never an argument');
});

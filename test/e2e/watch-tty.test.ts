// `opencomms watch` on a real terminal: tmux gives the process a pty of a
// known size, and capture-pane reads back what a person would see. Proves
// the full-screen view shows the channel, every member's role and the
// pending count, that it follows a change, and that Ctrl-C ends it with
// status 0 and the cursor shown again. Skipped where tmux is not installed.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { DIST, WAIT_MS, tempProject } from '../helpers/server';
import { create, join, member, ok } from './tools-support';
import { watchEnv } from '../watch/watch-process';
import { until } from '../helpers/wait';

const POLL_MS = 50;
const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';

function hasTmux(): boolean {
  const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  return probe.status === 0;
}

/** A tmux server on its own socket, gone after the test. */
function privateTmux(t: TestContext): (...args: string[]) => string {
  const socket = `opencomms-test-${process.pid}-${Date.now().toString(36)}`;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: watchEnv(), timeout: WAIT_MS });
  t.after(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  });
  return tmux;
}

/** Re-reads the pane until `check` holds on it; fails after WAIT_MS with the last screen. */
async function untilScreen(tmux: (...args: string[]) => string, what: string, check: (screen: string) => boolean): Promise<string> {
  let screen = '';
  await until(what, () => {
    screen = tmux('capture-pane', '-p', '-t', 'watch');
    return check(screen);
  }, { timeoutMs: WAIT_MS, everyMs: POLL_MS, lastSeen: () => screen });
  return screen;
}

/** Re-reads a tmux format until `check` holds on it; fails after WAIT_MS. */
async function untilFormat(tmux: (...args: string[]) => string, format: string, check: (value: string) => boolean): Promise<string> {
  let value = '';
  await until(`tmux ${format}`, () => {
    value = tmux('display-message', '-p', '-t', 'watch', format).trim();
    return check(value);
  }, { timeoutMs: WAIT_MS, everyMs: POLL_MS, lastSeen: () => JSON.stringify(value) });
  return value;
}

/** Re-reads the pane log until `check` holds on it (the piped cat may trail the screen); fails after WAIT_MS. */
async function untilLog(path: string, check: (text: string) => boolean): Promise<string> {
  let text = '';
  await until('the pane log', () => {
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      text = ''; // not created yet
    }
    return check(text);
  }, { timeoutMs: WAIT_MS, everyMs: POLL_MS, lastSeen: () => JSON.stringify(text.slice(-400)) });
  return text;
}

test('the full-screen view in a tmux pane shows the channel, both roles and the pending count; Ctrl-C exits 0 with the cursor back', async (t) => {
  if (!hasTmux()) {
    t.skip('tmux not installed');
    return;
  }
  const project = tempProject(t);
  const tmux = privateTmux(t);
  // bash runs the watch and then prints its exit status: bash waits out a
  // child that handles Ctrl-C itself and carries on when it exits normally.
  // Everything the pane receives is also logged, so the cursor's return can
  // be checked in the bytes themselves.
  const script = joinPath(project, 'run-watch.sh');
  const log = joinPath(project, 'pane.log');
  writeFileSync(script, `${JSON.stringify(process.execPath)} ${JSON.stringify(DIST)} watch --project ${JSON.stringify(project)}\necho "watch exited with status $?"\n`);
  tmux('new-session', '-d', '-s', 'watch', '-x', '120', '-y', '40', `bash ${JSON.stringify(script)}`);
  // Keep the pane after bash ends, so its last screen can still be read.
  tmux('set-option', '-w', '-t', 'watch', 'remain-on-exit', 'on');
  tmux('pipe-pane', '-t', 'watch', `cat >> ${JSON.stringify(log)}`);

  await untilScreen(tmux, 'the empty view', (s) => s.includes('OpenComms watch') && s.includes('No channels yet'));
  assert.equal(await untilFormat(tmux, '#{cursor_flag}', (v) => v === '0'), '0', 'the view hides the cursor while it runs');

  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  await create(writer, 'tty-review', 'author');
  await join(reviewer, 'tty-review', 'critic');
  await ok(writer, 'opencomms_send', { channel: 'tty-review', content: 'not for the screen' });

  const screen = await untilScreen(tmux, 'the channel with one pending message', (s) =>
    /critic\s+sess_reviewer .*, 1 pending/.test(s));
  assert.match(screen, /channel tty-review \(/);
  assert.match(screen, /^\s+author\s+sess_writer\s.*, 0 pending$/m);
  assert.match(screen, /^\s+critic\s+sess_reviewer\s.*, 1 pending$/m);
  assert.match(screen, /author -> critic manual pending/);
  assert.equal(screen.includes('not for the screen'), false, 'content never reaches the screen');
  for (const line of screen.split('\n')) assert.ok(line.length <= 120, `a line wider than the pane: ${line}`);

  // A pull redraws the view: the count goes to 0 and the mail shows delivered.
  await ok(reviewer, 'opencomms_pull', {});
  await untilScreen(tmux, 'the count back to 0 after the pull', (s) =>
    /critic\s+sess_reviewer .*, 0 pending/.test(s) && /author -> critic manual delivered/.test(s));

  tmux('send-keys', '-t', 'watch', 'C-c');
  await untilScreen(tmux, 'the exit status line', (s) => /watch exited with status \d+/.test(s));
  assert.match(tmux('capture-pane', '-p', '-t', 'watch'), /watch exited with status 0$/m, 'Ctrl-C ends the view with status 0');
  // The view's last bytes give the cursor back: a show-cursor after the final hide.
  // (The log may start after the first hide; the in-run hide was checked on the cursor flag above.)
  const bytes = await untilLog(log, (text) => text.includes('watch exited with status'));
  assert.ok(bytes.lastIndexOf(SHOW_CURSOR) > bytes.lastIndexOf(HIDE_CURSOR), 'the cursor is shown again on exit');
});

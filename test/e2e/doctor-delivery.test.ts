// doctor's delivery checks: per host set up, which session states mail
// reaches. The Claude Code inbox is checked only from inside a session (its
// environment names the socket): the auth line is written, never a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { runCli, tempProject } from '../helpers/server';
import { startInbox, stubCodex } from './door-support';

const CLEAN = { CLAUDE_CODE_MESSAGING_SOCKET: undefined, CLAUDE_CODE_MESSAGING_TOKEN: undefined, OPENCOMMS_CODEX_BIN: undefined };

async function installed(t: Parameters<typeof tempProject>[0], ...hosts: string[]): Promise<string> {
  const project = tempProject(t);
  for (const host of hosts) assert.equal((await runCli(['install', host, '--project', project], { cwd: tmpdir() })).code, 0);
  return project;
}

test('inside a Claude Code session doctor writes the inbox only the auth line, and says idle sessions are woken', async (t) => {
  const project = await installed(t, 'claude-code');
  const inbox = await startInbox(t, { kind: 'accept', authAnswer: '{"type":"auth_ok"}' });
  const { code, stdout } = await runCli(['doctor', '--project', project], {
    cwd: tmpdir(), env: { ...CLEAN, CLAUDE_CODE_MESSAGING_SOCKET: inbox.path, CLAUDE_CODE_MESSAGING_TOKEN: 'tok' },
  });
  assert.equal(code, 0, stdout);
  assert.match(stdout, /ok {3}claude-code delivery: busy, finishing and resumed sessions: through the hooks; idle sessions: woken through the Claude Code inbox \(the socket took the auth line, answering \{"type":"auth_ok"\}\)/);
  assert.deepEqual(inbox.allLines(), ['{"type":"auth","token":"tok"}']);
});

test('an inbox that refuses the auth line is a WARN naming idle sessions, never a FAIL', async (t) => {
  const project = await installed(t, 'claude-code');
  const inbox = await startInbox(t, { kind: 'answer', afterAuth: '{"type":"error","error":"refused"}' });
  const { code, stdout } = await runCli(['doctor', '--project', project], {
    cwd: tmpdir(), env: { ...CLEAN, CLAUDE_CODE_MESSAGING_SOCKET: inbox.path, CLAUDE_CODE_MESSAGING_TOKEN: 'tok' },
  });
  assert.equal(code, 0, stdout);
  assert.match(stdout, /WARN claude-code delivery: .*did not take the auth line \(the inbox answered the auth line: refused\).*Missed here: idle sessions/);
});

test('codex: idle sessions are woken when the codex program is found, else said; gemini-cli idle waits for a prompt', async (t) => {
  const project = await installed(t, 'codex', 'gemini-cli');
  const codex = stubCodex(t);
  const found = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: { ...CLEAN, OPENCOMMS_CODEX_BIN: codex.bin } });
  assert.match(found.stdout, /ok {3}codex delivery: .*idle sessions: woken by `.*codex queue`/);
  assert.match(found.stdout, /ok {3}gemini-cli delivery: .*idle sessions: at their next prompt \(Gemini CLI has no door/);
  assert.deepEqual(codex.runs(), [], 'doctor never runs codex');
  const missing = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: { ...CLEAN, OPENCOMMS_CODEX_BIN: '/nonexistent/codex' } });
  // A missing codex program is never a FAIL (the trust lines may be, in this machine's HOME: not this test's concern).
  assert.doesNotMatch(missing.stdout, /FAIL codex delivery/);
  assert.match(missing.stdout, /ok {3}codex delivery: .*`\/nonexistent\/codex` is not found here; if Codex runs on this machine, its idle sessions miss their wake-up/);
});

test('without hooks the busy, finishing and resumed states are missed; the OpenCode plugin covers every state', async (t) => {
  const project = await installed(t, 'claude-code', 'opencode');
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  writeFileSync(join(project, '.claude', 'settings.json'), '{}\n');
  const { stdout } = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: CLEAN });
  assert.match(stdout, /WARN claude-code delivery: idle sessions: .*Missed here: busy, finishing, resumed sessions/);
  assert.match(stdout, /ok {3}opencode delivery: the plugin prompts sessions in every state/);
});

test('the turn records the hooks write are OpenComms\' own files to doctor, and a dead writer\'s temp file is a leftover', async (t) => {
  const project = await installed(t, 'claude-code');
  const { writeTurnRecord } = await import('../../src/local/turn-records');
  const { writeFileSync, utimesSync } = await import('node:fs');
  const { join } = await import('node:path');
  writeTurnRecord(project, 'cc-1', { phase: 'idle', at: 1, event: 'Stop' });
  const temp = join(project, '.opencomms', 'turns', '.cc-1.999999.0000abcd.tmp');
  writeFileSync(temp, '{}', { mode: 0o600 });
  utimesSync(temp, new Date(0), new Date(0));
  const { stdout } = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: CLEAN });
  assert.match(stdout, /ok {3}entries: /, stdout);
  assert.match(stdout, /leftovers: .*turns/, stdout);
});

test('codex hooks Codex does not trust are said to miss the busy, finishing and resumed states', async (t) => {
  const project = await installed(t, 'codex');
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const home = mkdtempSync(join(tmpdir(), 'oc-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(home, '.codex'));
  writeFileSync(join(home, '.codex', 'config.toml'), 'model = "x"\n');
  const untrusted = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: { ...CLEAN, HOME: home, CODEX_HOME: undefined } });
  assert.match(untrusted.stdout, /WARN codex delivery: .*not trusted in ~\/\.codex\/config\.toml.*Missed here: busy, finishing, resumed sessions/);
  // A trust line whose hash is not the hook's is no trust: judged as the trust check judges it.
  writeFileSync(join(home, '.codex', 'config.toml'), `[hooks.state."${join(project, '.codex', 'hooks.json')}:stop:0:0"]\ntrusted_hash = "sha256:00"\n`);
  const stale = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: { ...CLEAN, HOME: home, CODEX_HOME: undefined } });
  assert.match(stale.stdout, /WARN codex delivery: .*not trusted/);
  assert.match(stale.stdout, /install codex --apply/);
  const applied = await runCli(['install', 'codex', '--project', project, '--apply'], { cwd: tmpdir(), env: { ...CLEAN, HOME: home, CODEX_HOME: undefined } });
  assert.equal(applied.code, 0, applied.stderr);
  const trusted = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: { ...CLEAN, HOME: home, CODEX_HOME: undefined } });
  assert.match(trusted.stdout, /codex delivery: busy, finishing and resumed sessions: through the hooks \(trusted\)/);
  assert.match(trusted.stdout, /ok {3}codex trust: /);
});

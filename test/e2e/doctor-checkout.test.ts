// A clone of a project whose host configs name folders absolutely (Codex's
// always do; an older install wrote them for Claude Code too) still starts
// the first checkout's server and hooks, on its store: the two trees' mail and
// reservations mix. doctor names each such line as a FAIL, --fix points it at
// the clone (those paths alone change), and the first checkout is left alone.
// And a server copy that is not this build is named by its source commit.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { DIST, runCli, startServer, tempProject, WAIT_MS, type Json } from '../helpers/server';
import { runToEnd } from '../helpers/run';
import { readJson, runHookCommand, snapshot, tempHome } from '../hosts/install-support';

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
const REASON = 'config_in_other_checkout';
/** The files holding our paths after the set-up below, each with how many of its lines name the first checkout. */
const FOREIGN_LINES: Record<string, number> = {
  '.mcp.json': 2, // the server, and --project on a line of its own
  '.claude/settings.json': 6, // one hook command per event
  '.codex/config.toml': 2, // args over several lines: the server, then --project
  '.codex/hooks.json': 5,
};

async function git(cwd: string, ...args: string[]): Promise<void> {
  const identity = ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false'];
  const run = await runToEnd('git', [...identity, ...args], { cwd, env: GIT_ENV, waitMs: WAIT_MS });
  assert.equal(run.code, 0, run.stderr);
}

async function doctor(project: string, env: Record<string, string | undefined>, ...flags: string[]): Promise<{ code: number | null; checks: Json[] }> {
  const run = await runCli(['doctor', '--json', '--project', project, ...flags], { cwd: tmpdir(), env });
  return { code: run.code, checks: JSON.parse(run.stdout).checks as Json[] };
}

/**
 * Project A, installed for Claude Code and Codex and committed; its Claude
 * Code files in the older form that names A absolutely (as scripts/check-hosts-turns.sh
 * writes them), its Codex args spread over lines in literal strings with a comment.
 */
async function installedProject(t: TestContext, env: Record<string, string | undefined>): Promise<{ parent: string; a: string }> {
  const parent = tempProject(t);
  const a = join(parent, 'first checkout');
  mkdirSync(a);
  await git(a, 'init', '-q');
  for (const host of ['claude-code', 'codex']) {
    const installed = await runCli(['install', host, '--project', a], { cwd: tmpdir(), env });
    assert.equal(installed.code, 0, installed.stderr);
  }
  const mcp = readJson(join(a, '.mcp.json'));
  mcp.mcpServers.opencomms.args = [join(a, '.opencomms/opencomms.js'), '--project', a, '--host', 'claude-code'];
  writeFileSync(join(a, '.mcp.json'), `${JSON.stringify(mcp, null, 2)}\n`);
  const settings = join(a, '.claude/settings.json');
  writeFileSync(settings, readFileSync(settings, 'utf8').replaceAll('$CLAUDE_PROJECT_DIR', a));
  const toml = join(a, '.codex/config.toml');
  const text = readFileSync(toml, 'utf8');
  const args = /^args = \[(.*)\]$/m.exec(text)![1].split(', ').map((quoted) => `'${JSON.parse(quoted)}'`);
  writeFileSync(toml, text.replace(/^args = .*$/m, `args = [\n  ${args.join(',\n  ')},\n] # ours`));
  await git(a, 'add', '-A');
  await git(a, 'commit', '-q', '-m', 'opencomms installed');
  return { parent, a };
}

test('a git clone of an installed project: doctor FAILs each line that starts the first checkout, --fix points exactly those at the clone, the first checkout is untouched', async (t) => {
  const env = { HOME: tempHome(t), CODEX_HOME: undefined };
  const { parent, a } = await installedProject(t, env);
  const b = join(parent, 'the clone');
  await git(parent, 'clone', '-q', a, b);
  const before = snapshot(a);
  const cloned = Object.fromEntries(Object.keys(FOREIGN_LINES).map((file) => [file, readFileSync(join(b, file), 'utf8')]));

  const found = await doctor(b, env);
  assert.equal(found.code, 1);
  const fails = found.checks.filter((c) => c.reason === REASON);
  for (const [file, count] of Object.entries(FOREIGN_LINES)) {
    const ofFile = fails.filter((c) => c.message.startsWith(`${file} line `));
    assert.equal(ofFile.length, count, `${file}: ${JSON.stringify(fails.map((c) => c.message))}`);
    const lines = cloned[file].split('\n');
    for (const check of ofFile) {
      assert.equal(check.status, 'fail');
      const line = Number(/ line (\d+) /.exec(check.message)![1]);
      // The line named is the one that holds the first checkout's path, and the finding names that checkout.
      assert.ok(lines[line - 1].includes(a), `${file} line ${line} is ${JSON.stringify(lines[line - 1])}`);
      assert.ok(check.message.includes(`of the checkout ${a}`), check.message);
      assert.match(check.fix, /doctor --fix$/);
    }
  }
  // No "ok" for a server that is the first checkout's.
  assert.ok(!found.checks.some((c) => c.status === 'ok' && c.message.includes(a)), JSON.stringify(found.checks));

  const fixed = await doctor(b, env, '--fix');
  assert.equal(fixed.checks.filter((c) => c.reason === REASON).length, 0, JSON.stringify(fixed.checks));
  assert.equal(fixed.checks.filter((c) => c.fixed === true && / line \d+\)$/.test(c.name)).length, Object.values(FOREIGN_LINES).reduce((x, y) => x + y));
  for (const file of Object.keys(FOREIGN_LINES)) {
    // Byte-minimal: the clone's file is what it was with the first checkout's folder renamed, nothing else.
    assert.equal(readFileSync(join(b, file), 'utf8'), cloned[file].replaceAll(a, b), file);
  }
  const again = await doctor(b, env);
  assert.deepEqual(again.checks.filter((c) => c.reason === REASON || (c.status !== 'ok' && String(c.message).includes(a))), []);
  assert.deepEqual(snapshot(a), before, 'the first checkout is untouched');

  // The clone's server, started as its .mcp.json now says, keeps its sessions in the clone's store; so does its hook.
  const entry = readJson(join(b, '.mcp.json')).mcpServers.opencomms as { args: string[] };
  const server = startServer(t, { project: parent, script: entry.args[0], args: entry.args.slice(1), cwd: b, env: { CLAUDE_CODE_SESSION_ID: 'clone-session', CLAUDE_PROJECT_DIR: b, OPENCOMMS_MEMBER_ID: undefined } });
  await server.initialize('2025-06-18');
  const status = await server.callTool('opencomms_status');
  assert.equal(status.ok, true, JSON.stringify(status));
  await server.close();
  const hook = readJson(join(b, '.claude/settings.json')).hooks.SessionStart[0].hooks[0].command as string;
  const event = { hook_event_name: 'SessionStart', session_id: 'clone-session', source: 'resume', cwd: b, transcript_path: join(b, 't.jsonl') };
  const ran = await runHookCommand(hook, event, b, { CLAUDE_PROJECT_DIR: b, CLAUDE_CODE_SESSION_ID: '' });
  assert.equal(ran.code, 0, ran.stderr);
  const links = readJson(join(b, '.opencomms', 'state.json')).session_links as Json;
  assert.equal(links['sid@claude-code:clone-session']?.member_id, status.data.member_id);
  assert.equal(existsSync(join(a, '.opencomms', 'state.json')), false, 'nothing in the first checkout');
});

test('a clone without a server copy of its own: doctor --fix points --project here and leaves the server line to install, which it names', async (t) => {
  const env = { HOME: tempHome(t), CODEX_HOME: undefined };
  const { parent, a } = await installedProject(t, env);
  const b = join(parent, 'bare clone');
  await git(parent, 'clone', '-q', a, b);
  unlinkSync(join(b, '.opencomms', 'opencomms.js'));
  const fixed = await doctor(b, env, '--fix');
  const left = fixed.checks.filter((c) => c.reason === REASON);
  assert.ok(left.length > 0);
  for (const check of left) {
    assert.match(check.message, /this checkout has no server copy to point it at: run `.*install (claude-code|codex)`/, check.message);
    assert.match(check.fix, /install (claude-code|codex)$/);
  }
  const mcp = readJson(join(b, '.mcp.json')).mcpServers.opencomms.args as string[];
  assert.deepEqual(mcp, [join(a, '.opencomms/opencomms.js'), '--project', b, '--host', 'claude-code']);
  // install writes the copy and this checkout's paths; then doctor finds nothing elsewhere.
  for (const host of ['claude-code', 'codex']) assert.equal((await runCli(['install', host, '--project', b], { cwd: tmpdir(), env })).code, 0);
  assert.deepEqual((await doctor(b, env)).checks.filter((c) => c.reason === REASON), []);
});

/** The source commit in a bundle's header, or what the header says in its place. */
function headerCommit(path: string): string {
  const head = readFileSync(path, 'utf8').slice(0, 4096);
  return /^\/\/ Source commit: ([0-9a-f]{12})/m.exec(head)?.[1] ?? (/^\/\/ Source commit: none/m.test(head) ? 'uncommitted' : 'unknown');
}

test('a server copy built from another commit of the same version is named by both source commits, and install or doctor --fix refreshes it', async (t) => {
  const env = { HOME: tempHome(t), CODEX_HOME: undefined };
  const project = tempProject(t);
  assert.equal((await runCli(['install', 'claude-code', '--project', project], { cwd: tmpdir(), env })).code, 0);
  const copy = join(project, '.opencomms', 'opencomms.js');
  const older = '0123456789abcdef0123456789abcdef01234567';
  const text = readFileSync(copy, 'utf8');
  const stamped = text.replace(/^\/\/ Source commit: .*$/m, `// Source commit: ${older}`);
  assert.notEqual(stamped, text);
  writeFileSync(copy, stamped);

  const found = await doctor(project, env);
  const stale = found.checks.find((c) => c.reason === 'server_copy_differs');
  assert.ok(stale, JSON.stringify(found.checks));
  assert.equal(stale.status, 'warn');
  assert.ok(stale.message.includes(`was built from source commit ${older.slice(0, 12)} (version `), stale.message);
  const ours = headerCommit(DIST);
  assert.ok(stale.message.includes(`this opencomms from ${/^[0-9a-f]+$/.test(ours) ? `source commit ${ours}` : `${ours} sources`} (version `), stale.message);
  assert.match(stale.message, /run `.*install claude-code`/);
  assert.match(stale.fix, /install claude-code$/);

  const fixed = await doctor(project, env, '--fix');
  assert.ok(fixed.checks.some((c) => c.fixed === true && c.message.includes(older.slice(0, 12)) && c.message.endsWith('replaced with this build')), JSON.stringify(fixed.checks));
  assert.deepEqual(readFileSync(copy), readFileSync(DIST));
  assert.equal((await doctor(project, env)).checks.filter((c) => c.reason === 'server_copy_differs').length, 0);
});

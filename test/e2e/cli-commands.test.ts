import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DIST, runCli, startServer, tempProject } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';

// pin, status and doctor run in this process (runCliInProcess) except in one test of each path, which
// goes through the shipped CLI, and in the tests that need the command to be a process of its own:
// a live process's pid that is not the command's own, a session that ended before the command ran.

const PIN_PATTERN = /^sess_[0-9a-f]{24}$/;

test('pin mints a sess_ id, writes its pin file and prints the id', async (t) => {
  const project = tempProject(t);
  const { code, stdout } = await runCli(['pin', '--project', project, '--host', 'codex']);
  assert.equal(code, 0);
  const id = stdout.trim();
  assert.match(id, PIN_PATTERN);
  const pin = JSON.parse(readFileSync(join(project, '.opencomms', 'pins', `${id}.json`), 'utf8'));
  assert.equal(pin.member_id, id);
  assert.equal(pin.host, 'codex');
  assert.equal(typeof pin.saved_at, 'number');
});

test('pin takes a given valid id', async (t) => {
  const project = tempProject(t);
  const { code, stdout } = await runCliInProcess(['pin', '--project', project, '--id', 'reviewer-1']);
  assert.equal(code, 0);
  assert.equal(stdout.trim(), 'reviewer-1');
  assert.ok(existsSync(join(project, '.opencomms', 'pins', 'reviewer-1.json')));
});

for (const bad of ['has space', '../escape', '-dash-first', 'x'.repeat(65), '<set by: opencomms install-member>']) {
  test(`pin refuses the malformed id ${JSON.stringify(bad.slice(0, 20))} with exit 2 and writes nothing`, async (t) => {
    const project = tempProject(t);
    const run = bad === 'has space' ? runCli : runCliInProcess;
    const { code, stderr } = await run(['pin', '--project', project, `--id=${bad}`]);
    assert.equal(code, 2);
    assert.equal(stderr.trim().split('\n').length, 1);
    assert.equal(existsSync(join(project, '.opencomms', 'pins')), false);
  });
}

test('two pins minted in a row differ', async (t) => {
  const project = tempProject(t);
  const a = (await runCliInProcess(['pin', '--project', project])).stdout.trim();
  const b = (await runCliInProcess(['pin', '--project', project])).stdout.trim();
  assert.notEqual(a, b);
});

async function projectWithConversation(t: Parameters<typeof tempProject>[0]): Promise<string> {
  const project = tempProject(t);
  const writer = startServer(t, { project, env: { OPENCOMMS_MEMBER_ID: 'sess_writer' } });
  const reviewer = startServer(t, { project, env: { OPENCOMMS_MEMBER_ID: 'sess_reviewer' } });
  assert.equal((await writer.callTool('opencomms_create', { channel: 'review', role: 'writer', role_prompt: 'write' })).ok, true);
  assert.equal((await reviewer.callTool('opencomms_join', { channel: 'review', role: 'reviewer', role_prompt: 'review' })).ok, true);
  assert.equal((await writer.callTool('opencomms_send', { channel: 'review', content: 'please look at parse()' })).ok, true);
  await writer.close();
  await reviewer.close();
  return project;
}

test('status --json reports channels, members and pending counts as stable JSON', async (t) => {
  const project = await projectWithConversation(t);
  const { code, stdout } = await runCli(['status', '--project', project, '--json']);
  assert.equal(code, 0);
  const report = JSON.parse(stdout);
  assert.equal(report.ok, true);
  const channel = report.data.channels.find((c: { name: string }) => c.name === 'review');
  assert.ok(channel);
  assert.deepEqual(channel.members.map((m: { role: string }) => m.role).sort(), ['reviewer', 'writer']);
  assert.equal(report.data.pending_messages, 1);
});

test('status prints a readable view with each member and their pending mail', async (t) => {
  const project = await projectWithConversation(t);
  const { code, stdout } = await runCliInProcess(['status', '--project', project]);
  assert.equal(code, 0);
  assert.match(stdout, /channel review/);
  assert.match(stdout, /reviewer\s+sess_reviewer.*1 pending/);
  assert.match(stdout, /writer\s+sess_writer.*0 pending/);
});

test('status names the store it read: the project\'s .opencomms folder, in its text and as store.kind file in --json', async (t) => {
  const project = tempProject(t);
  const env = { OPENCOMMS_STORE: undefined };
  const text = await runCliInProcess(['status', '--project', project], { env });
  assert.equal(text.code, 0, text.stderr);
  assert.ok(text.stdout.split('\n').includes(`store: file ${join(project, '.opencomms')}`), text.stdout);
  const json = await runCliInProcess(['status', '--project', project, '--json'], { env });
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).store, { kind: 'file' });
});

test('status works on a fresh project that has no .opencomms folder', async (t) => {
  const project = tempProject(t);
  const { code, stdout } = await runCliInProcess(['status', '--project', project]);
  assert.equal(code, 0);
  assert.match(stdout, /No channels yet/);
  assert.equal(existsSync(join(project, '.opencomms')), false);
});

test('doctor passes on a fresh project and says that each agent session gets its member by itself', async (t) => {
  const project = tempProject(t);
  const { code, stdout } = await runCli(['doctor', '--project', project]);
  assert.equal(code, 0);
  assert.match(stdout, /ok   members: none yet: each agent session gets a member of its own on its first OpenComms call/);
});

test('doctor --json fails on a state file that cannot be loaded and leaves it untouched', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, '.opencomms'));
  writeFileSync(join(project, '.opencomms', 'state.json'), '{"schema_version": 9}');
  const { code, stdout } = await runCliInProcess(['doctor', '--project', project, '--json']);
  assert.equal(code, 1);
  const report = JSON.parse(stdout);
  assert.equal(report.ok, false);
  assert.equal(report.checks.find((c: { name: string }) => c.name === 'state').status, 'fail');
  assert.equal(readFileSync(join(project, '.opencomms', 'state.json'), 'utf8'), '{"schema_version": 9}');
});

test('doctor lists preserved corrupt state files', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, '.opencomms'));
  writeFileSync(join(project, '.opencomms', 'state.corrupt-1700000000000.json'), 'x');
  const { stdout } = await runCliInProcess(['doctor', '--project', project]);
  assert.match(stdout, /state\.corrupt-1700000000000\.json/);
});

test('doctor reports temp and lock-aside files left by dead processes, and --fix deletes only those', async (t) => {
  const project = tempProject(t);
  const dir = join(project, '.opencomms');
  mkdirSync(join(dir, 'history'), { recursive: true });
  const old = new Date(Date.now() - 120_000);
  const leftovers = [join(dir, '.state.999999.abcdef12.tmp'), join(dir, '.state.lock.999998.0123abcd.stale'), join(dir, 'history', '.chn_a.999997.00ff00ff.tmp')];
  for (const path of leftovers) {
    writeFileSync(path, 'x');
    utimesSync(path, old, old);
  }
  const fresh = join(dir, '.state.999996.11111111.tmp'); // too young: another machine may still be writing it
  writeFileSync(fresh, 'x');
  const mine = join(dir, `.state.${process.pid}.22222222.tmp`); // a live process's
  writeFileSync(mine, 'x');
  utimesSync(mine, old, old);
  const report = await runCli(['doctor', '--project', project]);
  assert.match(report.stdout, /WARN leftovers: 3 temp or lock file\(s\) left by processes that died mid-save/);
  const fixed = await runCli(['doctor', '--project', project, '--fix']);
  assert.match(fixed.stdout, /leftovers: deleted 3 .*\(fixed\)/);
  for (const path of leftovers) assert.equal(existsSync(path), false, path);
  assert.equal(existsSync(fresh), true);
  assert.equal(existsSync(mine), true);
  assert.match((await runCli(['doctor', '--project', project])).stdout, /ok {3}leftovers: no temp or lock files/);
});

test('doctor --fix removes a lock left by a dead process, and only then', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, '.opencomms'));
  const lock = join(project, '.opencomms', '.state.lock');
  writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), t: 1, token: 'dead' }));
  const plain = await runCliInProcess(['doctor', '--project', project]);
  assert.match(plain.stdout, /dead process/);
  assert.ok(existsSync(lock));
  const fixed = await runCliInProcess(['doctor', '--project', project, '--fix']);
  assert.match(fixed.stdout, /\(fixed\)/);
  assert.equal(existsSync(lock), false);
});

test('doctor never removes a lock held by a live process', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, '.opencomms'));
  const lock = join(project, '.opencomms', '.state.lock');
  // stamped after its holder started, as every real stamp is (a stamp older than the
  // process that has its pid names an earlier process: PROTOCOL 4.5)
  writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), t: Date.now(), token: 'live' }));
  const { stdout } = await runCli(['doctor', '--project', project, '--fix']);
  assert.match(stdout, /live process/);
  assert.ok(existsSync(lock));
});

test('doctor reports members with their channels, and pins whose file was tampered with', async (t) => {
  const project = await projectWithConversation(t);
  await runCliInProcess(['pin', '--project', project, '--id', 'sess_writer']);
  writeFileSync(join(project, '.opencomms', 'pins', 'sess_forged.json'), JSON.stringify({ member_id: 'sess_other', host: 'mcp', saved_at: 1 }));
  const { stdout } = await runCliInProcess(['doctor', '--project', project]);
  assert.match(stdout, /member sess_writer: host mcp; member of review/);
  assert.match(stdout, /sess_forged\.json/);
  assert.ok(readdirSync(join(project, '.opencomms', 'pins')).includes('sess_forged.json'));
});

test('doctor lists each agent session\'s member with its host, sessions, last seen and away mark', async (t) => {
  const project = tempProject(t);
  const sessions: string[] = [];
  for (const sid of ['claude-A', 'claude-B']) {
    const server = startServer(t, { project, args: ['--project', project, '--host', 'claude-code'], env: { OPENCOMMS_MEMBER_ID: undefined, CLAUDE_CODE_SESSION_ID: sid } });
    await server.initialize();
    const created = await server.callTool(sessions.length === 0 ? 'opencomms_create' : 'opencomms_join', { channel: 'review', role: sessions.length === 0 ? 'writer' : 'reviewer', role_prompt: 'x' });
    assert.equal(created.ok, true, JSON.stringify(created));
    sessions.push(created.data.session_id);
    // A's session ends; B's server keeps running, so B is present (PROTOCOL 6.3).
    if (sid === 'claude-A') await server.close();
  }
  const end = await runCli(['hook', '--project', project], { input: JSON.stringify({ hook_event_name: 'SessionEnd', session_id: 'claude-A' }), env: { OPENCOMMS_HOST: 'claude-code', OPENCOMMS_MEMBER_ID: undefined } });
  assert.equal(end.code, 0, end.stderr);
  const { code, stdout } = await runCli(['doctor', '--project', project]);
  assert.equal(code, 0, stdout);
  for (const id of sessions) assert.match(stdout, new RegExp(`ok   member ${id}: host claude-code; member of review; \\d host session link\\(s\\), last seen \\d{4}-`));
  assert.match(stdout, new RegExp(`member ${sessions[0]}: .*away since \\d{4}-.*its mail waits for it`));
  assert.doesNotMatch(stdout, new RegExp(`member ${sessions[1]}: .*away since`));
});

test('doctor fails a host config that is not valid JSON, naming the file', async (t) => {
  const project = tempProject(t);
  writeFileSync(join(project, '.mcp.json'), '{"mcpServers": {');
  const { code, stdout } = await runCliInProcess(['doctor', '--project', project]);
  assert.equal(code, 1);
  assert.match(stdout, /\.mcp\.json/);
});

test('doctor fails a host config that points at a missing opencomms.js', async (t) => {
  const project = tempProject(t);
  writeFileSync(
    join(project, '.mcp.json'),
    JSON.stringify({ mcpServers: { opencomms: { command: 'node', args: [join(project, 'gone', 'opencomms.js')] } } }),
  );
  const { code, stdout } = await runCli(['doctor', '--project', project]);
  assert.equal(code, 1);
  assert.match(stdout, /does not exist/);
});

test('an internal fault answers -32603 without a stack on stdout and logs the detail on stderr', async (t) => {
  // A bundle whose tool catalog throws when it is first required: the tools
  // cannot be loaded, which no code path anticipates. The handshake and ping
  // do not need them.
  const project = tempProject(t);
  const bundle = readFileSync(DIST, 'utf8');
  const catalogInit = '"src/tools/catalog.ts"() {\n    "use strict";\n';
  assert.ok(bundle.includes(catalogInit), 'the catalog is evaluated on its first require');
  const broken = join(project, 'broken-opencomms.js');
  writeFileSync(broken, bundle.replace(catalogInit, `${catalogInit}    throw new Error("a planted fault");\n`));
  const server = startServer(t, { project, script: broken, env: { OPENCOMMS_MEMBER_ID: 'sess_a' } });
  const reply = await server.request('tools/call', { name: 'opencomms_status', arguments: {} });
  assert.equal(reply.error.code, -32603);
  assert.equal(reply.error.message, 'Internal error');
  assert.equal(reply.error.data, undefined);
  assert.equal(server.stdoutLines.some((line) => /planted fault|at .*opencomms\.js/.test(line)), false);
  await server.waitFor('the fault on stderr', () => (/dispatch tools\/call failed.*a planted fault/s.test(server.stderr) ? true : undefined));
  assert.deepEqual((await server.request('ping')).result, {});
});

test('an archives folder that is a link is a tool error with reason state_unwritable naming it and the fix', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, '.opencomms'), { recursive: true });
  symlinkSync('archives', join(project, '.opencomms', 'archives')); // a link to itself: listing it fails with ELOOP
  const server = startServer(t, { project, env: { OPENCOMMS_MEMBER_ID: 'sess_a' } });
  const reply = await server.request('tools/call', { name: 'opencomms_archive', arguments: {} });
  assert.equal(reply.error, undefined);
  assert.equal(reply.result.isError, true);
  const result = reply.result.structuredContent;
  assert.equal(result.data.reason, 'state_unwritable');
  assert.match(result.message, /archives is a symbolic link.*remove the link.*Nothing was changed\..*opencomms doctor/);
});

test('a state file the store cannot read is a tool error with reason state_unwritable, saying what to do', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, '.opencomms', 'state.json'), { recursive: true }); // a directory where the file should be
  const server = startServer(t, { project, env: { OPENCOMMS_MEMBER_ID: 'sess_a' } });
  for (const [name, args] of [['opencomms_status', {}], ['opencomms_create', { channel: 'c', role: 'r', role_prompt: 'p' }]] as const) {
    const reply = await server.request('tools/call', { name, arguments: args });
    assert.equal(reply.error, undefined, name);
    assert.equal(reply.result.isError, true);
    const result = reply.result.structuredContent;
    assert.equal(result.ok, false);
    assert.equal(result.data.reason, 'state_unwritable');
    assert.match(result.message, /state\.json is a folder .*move it out of \.opencomms.*Nothing was changed\..*opencomms doctor/);
  }
  assert.equal(statSync(join(project, '.opencomms', 'state.json')).isDirectory(), true);
});

test('doctor checks a Claude Code plugin install: server entry, bundle and hooks', async (t) => {
  const project = tempProject(t);
  assert.equal((await runCliInProcess(['install', 'claude-code', '--plugin', '--project', project])).code, 0);
  const { code, stdout } = await runCliInProcess(['doctor', '--project', project]);
  assert.equal(code, 0, stdout);
  assert.match(stdout, /ok {3}claude-code plugin \(\.opencomms\/claude-plugin\/\.mcp\.json\)/);
  assert.match(stdout, /ok {3}claude-code plugin hooks/);
  assert.doesNotMatch(stdout, /WARN claude-code hooks/);
});

test('doctor --fix refreshes an outdated project copy of opencomms.js but never a copy outside the project: the config that starts that one is pointed at the project copy', async (t) => {
  const project = tempProject(t);
  assert.equal((await runCliInProcess(['install', 'cursor', '--project', project])).code, 0);
  const copy = join(project, '.opencomms', 'opencomms.js');
  writeFileSync(copy, '// an older opencomms\n');
  const outside = join(tempProject(t), 'opencomms.js');
  writeFileSync(outside, '// someone else\'s opencomms\n');
  mkdirSync(join(project, '.vscode'));
  writeFileSync(join(project, '.vscode', 'mcp.json'), JSON.stringify({ servers: { opencomms: { type: 'stdio', command: 'node', args: [outside] } } }));
  const plain = await runCliInProcess(['doctor', '--project', project]);
  assert.match(plain.stdout, /was built from unknown sources, this opencomms from .*doctor --fix` to refresh the copy/);
  assert.match(plain.stdout, /FAIL vscode \(\.vscode\/mcp\.json line 1\): .* starts .*opencomms\.js, of no checkout doctor could find, not this checkout/);
  const fixed = await runCliInProcess(['doctor', '--project', project, '--fix']);
  assert.match(fixed.stdout, /\(fixed\)/);
  assert.equal(readFileSync(copy, 'utf8'), readFileSync(DIST, 'utf8'));
  assert.match(fixed.stdout, /ok {3}vscode \(\.vscode\/mcp\.json line 1\): .*; now .*\.opencomms\/opencomms\.js, of this checkout \(fixed\)/);
  assert.deepEqual(JSON.parse(readFileSync(join(project, '.vscode', 'mcp.json'), 'utf8')).servers.opencomms.args, [copy]);
  assert.equal(readFileSync(outside, 'utf8'), '// someone else\'s opencomms\n');
});

// Claude Code reads .mcp.json and its settings files as strict JSON, Codex its
// .codex/hooks.json; Gemini CLI takes comments in its settings, not trailing
// commas. One mark the host does not take and it refuses the file whole (no
// project server starts, no hook runs). doctor names the
// line and what is wrong; install refuses to write into such a file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject } from '../helpers/server';
import { snapshot, tempHome, writeFiles } from '../hosts/install-support';

const REFUSED: readonly { host?: string; file: string; name: string; text: string; where: RegExp; what: RegExp }[] = [
  { file: '.mcp.json', name: 'a comment', text: '{\n  // my servers\n  "mcpServers": {}\n}\n', where: /line 2, column 3\b/, what: /comment \(\/\/\)/ },
  {
    file: '.mcp.json',
    name: 'a trailing comma',
    text: '{\n  "mcpServers": {\n    "other": { "command": "other-srv" },\n  }\n}\n',
    where: /line 3, column 40\b/,
    what: /trailing comma/,
  },
  { file: '.claude/settings.json', name: 'a block comment', text: '{ "model": "x", /* mine */ "env": {} }\n', where: /line 1, column 17\b/, what: /comment \(\/\*\)/ },
  { host: 'codex', file: '.codex/hooks.json', name: 'a comment', text: '{\n  "hooks": {} // mine\n}\n', where: /line 2, column 15\b/, what: /comment \(\/\/\)/ },
  {
    host: 'gemini-cli',
    file: '.gemini/settings.json',
    name: 'a trailing comma after a comment it takes',
    text: '{\n  // my look\n  "ui": { "theme": "Default" }, // mine\n}\n',
    where: /line 3, column 31\b/,
    what: /trailing comma/,
  },
  { file: '.claude/settings.local.json', name: 'a trailing comma', text: '{\n  "permissions": { "allow": ["Read",] }\n}\n', where: /line 2, column 36\b/, what: /trailing comma/ },
];

for (const { host = 'claude-code', file, name, text, where, what } of REFUSED) {
  test(`doctor fails a ${file} with ${name}, naming the line, the column and the problem`, async (t) => {
    const project = tempProject(t);
    writeFiles(project, { [file]: text });
    const { code, stdout } = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: { HOME: tempHome(t), CODEX_HOME: undefined } });
    assert.equal(code, 1, stdout);
    const line = stdout.split('\n').find((l) => l.startsWith(`FAIL ${host} (${file})`));
    assert.ok(line, stdout);
    assert.match(line, where);
    assert.match(line, what);
  });

  test(`install ${host} refuses a ${file} with ${name}: exit 1, the same line named, every byte of the project unchanged`, async (t) => {
    const project = tempProject(t);
    writeFiles(project, { [file]: text });
    const before = snapshot(project);
    const { code, stdout, stderr } = await runCli(['install', host, '--project', project], { cwd: tmpdir(), env: { HOME: tempHome(t), CODEX_HOME: undefined } });
    assert.equal(code, 1, stdout + stderr);
    assert.ok(stderr.includes(file), stderr);
    assert.match(stderr, where);
    assert.match(stderr, what);
    assert.deepEqual(snapshot(project), before);
  });
}

test('install claude-code still writes into a strict .mcp.json whose strings hold comment marks and commas, and doctor passes it', async (t) => {
  const project = tempProject(t);
  const env = { HOME: tempHome(t), CODEX_HOME: undefined };
  writeFiles(project, { '.mcp.json': '{\n  "mcpServers": {\n    "other": { "command": "srv", "args": ["http://x/*y*/", "a,]", "b,}"] }\n  }\n}\n' });
  const installed = await runCli(['install', 'claude-code', '--project', project], { cwd: tmpdir(), env });
  assert.equal(installed.code, 0, installed.stderr);
  const written = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
  assert.deepEqual(Object.keys(written.mcpServers), ['other', 'opencomms']);
  const { code, stdout } = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env });
  assert.doesNotMatch(stdout, /FAIL/, stdout);
  assert.equal(code, 0, stdout);
});

test('doctor fails a .claude/settings.json that is not JSON even with comments, instead of only missing its hooks', async (t) => {
  const project = tempProject(t);
  writeFiles(project, { '.claude/settings.json': '{\n  "hooks": {\n' });
  const { code, stdout } = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: { HOME: tempHome(t), CODEX_HOME: undefined } });
  assert.equal(code, 1, stdout);
  assert.match(stdout, /^FAIL claude-code \(\.claude\/settings\.json\): .*not valid JSON, with or without comments/m);
});

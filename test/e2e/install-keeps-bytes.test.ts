// install and uninstall edit the user's own config files: only what changes
// is written, in the file's own indentation, line endings and layout, and
// uninstall after install gives back the very bytes the user had.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { snapshot, writeFiles } from '../hosts/install-support';

function cli(...args: string[]) {
  return runCliInProcess(args, { cwd: tmpdir() });
}

/** The shipped CLI, for one test of each path (install, uninstall, uninstall --dry-run): the rest run in this process. */
function cliProcess(...args: string[]) {
  return runCli(args, { cwd: tmpdir() });
}

const TAB_SETTINGS = '{\n\t"permissions": {\n\t\t"allow": ["Bash(ls)", "Read"]\n\t},\n' +
  '\t"hooks": {\n\t\t"Stop": [\n\t\t\t{\n\t\t\t\t"hooks": [{ "type": "command", "command": "echo mine" }]\n\t\t\t}\n\t\t]\n\t}\n}\n';

/** Pre-filled host files in every style a user may keep: 2/4-space and tab indents, CRLF, one-line files, inline arrays, comments. */
const HOST_FILES: Record<string, Record<string, string>> = {
  'claude-code': {
    '.mcp.json': '{\n    "mcpServers": {\n        "other": {\n            "command": "other-srv",\n            "args": ["--flag", "x"]\n        }\n    },\n    "zeta": 1\n}\n',
    '.claude/settings.json': TAB_SETTINGS,
  },
  codex: {
    '.codex/config.toml': '# my codex\r\nmodel = "o3"\r\n\r\n[mcp_servers.other]\r\ncommand = "other-srv"\r\nargs = ["x", "y"] # keep\r\n',
    '.codex/hooks.json': '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo mine","timeout":5}]}]}}\n',
  },
  'gemini-cli': {
    '.gemini/settings.json': '{\n  // look\n  "ui": { "theme": "Default" },\n  "mcpServers": {\n    "other": { "command": "other-srv", "args": ["x"] } // my server\n  }\n}\n',
  },
  opencode: {
    'opencode.jsonc': '{\n\t"$schema": "https://opencode.ai/config.json",\n\t// the model I use\n\t"model": "x/y",\n}\n',
  },
  cursor: {
    '.cursor/mcp.json': '{\r\n  "mcpServers": {\r\n    "other": {\r\n      "command": "other-srv",\r\n      "args": ["x"]\r\n    }\r\n  }\r\n}\r\n',
  },
  vscode: {
    '.vscode/mcp.json': '{\n\t// servers of mine\n\t"servers": {\n\t\t"other": { "type": "stdio", "command": "other-srv" } // keep\n\t},\n\t"inputs": []\n}\n',
  },
};

// OpenCode gets its tools from the plugin: install writes no server entry there (see below).
for (const [host, files] of Object.entries(HOST_FILES).filter(([host]) => host !== 'opencode')) {
  test(`${host}: install then uninstall gives back the original bytes of every pre-filled config file`, async (t) => {
    const run = host === 'claude-code' ? cliProcess : cli;
    const project = tempProject(t);
    writeFiles(project, files);
    const installed = await run('install', host, '--project', project);
    assert.equal(installed.code, 0, installed.stderr);
    for (const rel of Object.keys(files)) assert.notEqual(readFileSync(join(project, rel), 'utf8'), files[rel], `${rel} did not get our entry`);
    const removed = await run('uninstall', host, '--project', project);
    assert.equal(removed.code, 0, removed.stderr);
    for (const [rel, text] of Object.entries(files)) assert.equal(readFileSync(join(project, rel), 'utf8'), text, `${rel} changed`);
  });
}

// A user's own empty container is theirs: uninstall gives it back, and the file that held only it.
const EMPTY_CONTAINERS: [host: string, rel: string, text: string][] = [
  ['claude-code', '.mcp.json', '{"mcpServers": {}}\n'],
  ['claude-code', '.mcp.json', '{\n  "mcpServers": {}\n}\n'],
  ['claude-code', '.claude/settings.json', '{\n  "hooks": {}\n}\n'],
  ['gemini-cli', '.gemini/settings.json', '{\n  "ui": { "theme": "Default" },\n  "mcpServers": {}\n}\n'],
  ['gemini-cli', '.gemini/settings.json', '{"mcpServers": {}}'],
  ['cursor', '.cursor/mcp.json', '{\r\n  "mcpServers": {}\r\n}\r\n'],
  ['vscode', '.vscode/mcp.json', '{\n\t"servers": {}\n}\n'],
  ['codex', '.codex/hooks.json', '{"hooks":{}}\n'],
];
for (const [host, rel, text] of EMPTY_CONTAINERS) {
  test(`${host}: a ${rel} that held ${JSON.stringify(text)} is given back byte for byte by uninstall, its empty container kept`, async (t) => {
    const project = tempProject(t);
    writeFiles(project, { [rel]: text });
    assert.equal((await cliProcess('install', host, '--project', project)).code, 0);
    assert.notEqual(readFileSync(join(project, rel), 'utf8'), text, `${rel} did not get our entry`);
    const removed = await cliProcess('uninstall', host, '--project', project);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(existsSync(join(project, rel)), true, `${rel} was deleted`);
    assert.equal(readFileSync(join(project, rel), 'utf8'), text);
  });
}

test('claude-code: installed twice over a user\'s {"mcpServers": {}}, uninstall still gives the first bytes back', async (t) => {
  const project = tempProject(t);
  writeFiles(project, { '.mcp.json': '{"mcpServers": {}}\n' });
  assert.equal((await cliProcess('install', 'claude-code', '--project', project)).code, 0);
  assert.equal((await cliProcess('install', 'claude-code', '--project', project, '--member', 'writer')).code, 0);
  assert.equal((await cliProcess('uninstall', 'claude-code', '--project', project)).code, 0);
  assert.equal(readFileSync(join(project, '.mcp.json'), 'utf8'), '{"mcpServers": {}}\n');
});

test('claude-code: a planted install record cannot make uninstall write a server of its own into .mcp.json', async (t) => {
  const project = tempProject(t);
  writeFiles(project, { '.mcp.json': '{"mcpServers": {}}\n' });
  assert.equal((await cliProcess('install', 'claude-code', '--project', project)).code, 0);
  const installed = readFileSync(join(project, '.mcp.json'), 'utf8');
  const planted = { '.mcp.json': { before: '{"mcpServers": {"evil": {"command": "evil-srv"}}}\n', after: installed } };
  writeFileSync(join(project, '.opencomms', 'install-record.json'), JSON.stringify(planted));
  assert.equal((await cliProcess('uninstall', 'claude-code', '--project', project)).code, 0);
  assert.equal(existsSync(join(project, '.mcp.json')), false, 'without a true record the file goes, as uninstall leaves it by structure');
});

test('what install adds follows each file\'s own indentation and line endings, and leaves the user\'s lines as they were', async (t) => {
  const project = tempProject(t);
  for (const files of Object.values(HOST_FILES)) writeFiles(project, files);
  for (const host of Object.keys(HOST_FILES)) assert.equal((await cli('install', host, '--project', project)).code, 0);
  const read = (rel: string): string => readFileSync(join(project, rel), 'utf8');
  const indents = (rel: string): string[] => read(rel).split(/\r?\n/).map((line) => /^[ \t]*/.exec(line)![0]);
  assert.ok(indents('.mcp.json').every((i) => /^( {4})*$/.test(i)), `.mcp.json left its 4-space grid:\n${read('.mcp.json')}`);
  assert.ok(read('.mcp.json').includes('"args": ["--flag", "x"]'), 'the user\'s one-line array was spread out');
  for (const rel of ['.claude/settings.json', '.vscode/mcp.json', 'opencode.jsonc']) {
    assert.ok(indents(rel).every((i) => /^\t*$/.test(i)), `${rel} mixes spaces into its tab indentation:\n${read(rel)}`);
  }
  for (const rel of ['.cursor/mcp.json', '.codex/config.toml']) assert.equal(read(rel).replace(/\r\n/g, '').includes('\n'), false, `${rel} got a bare LF`);
  assert.equal(read('.codex/hooks.json').trimEnd().includes('\n'), false, 'the one-line hooks.json was spread over lines');
  assert.match(read('.gemini/settings.json'), /"args": \["x"\] \}, \/\/ my server\n {4}"opencomms"/, 'the comment after the user\'s last server moved');
  assert.ok(read('.claude/settings.json').startsWith(`${TAB_SETTINGS.slice(0, TAB_SETTINGS.indexOf('\t\t\t}\n'))}\t\t\t},\n\t\t\t{\n\t\t\t\t"hooks": [\n`));
});

test('opencode: install leaves a user\'s opencode.jsonc byte for byte and creates no opencode.json: the plugin gives OpenCode its tools', async (t) => {
  const project = tempProject(t);
  writeFiles(project, HOST_FILES.opencode);
  const { code, stderr } = await cli('install', 'opencode', '--project', project);
  assert.equal(code, 0, stderr);
  assert.equal(existsSync(join(project, 'opencode.json')), false, 'opencode.json was created');
  assert.equal(readFileSync(join(project, 'opencode.jsonc'), 'utf8'), HOST_FILES.opencode['opencode.jsonc']);
  assert.ok(existsSync(join(project, '.opencode', 'plugin', 'opencomms.js')), 'the plugin is installed');
});

test('opencode: install takes an older install\'s mcp.opencomms out of opencode.jsonc, keeping the user\'s lines and comments', async (t) => {
  const project = tempProject(t);
  const withOurs = '{\n\t"$schema": "https://opencode.ai/config.json",\n\t// the model I use\n\t"model": "x/y",\n\t"mcp": {\n\t\t"opencomms": { "type": "local", "command": ["node", "/old/opencomms.js", "--host", "opencode"], "enabled": true }\n\t}\n}\n';
  writeFiles(project, { 'opencode.jsonc': withOurs });
  const { code, stdout, stderr } = await cli('install', 'opencode', '--project', project);
  assert.equal(code, 0, stderr);
  const after = readFileSync(join(project, 'opencode.jsonc'), 'utf8');
  assert.doesNotMatch(after, /opencomms/);
  assert.match(after, /\/\/ the model I use\n\t"model": "x\/y"/);
  assert.match(stdout, /opencode\.jsonc.*taken out/);
});

test('opencode: with both files, the one that holds our entry is the one edited and the one uninstall cleans', async (t) => {
  const project = tempProject(t);
  writeFiles(project, HOST_FILES.opencode);
  assert.equal((await cli('install', 'opencode', '--project', project)).code, 0);
  const plain = '{\n  "model": "z/w"\n}\n';
  writeFiles(project, { 'opencode.json': plain });
  const before = snapshot(project);
  assert.equal((await cli('install', 'opencode', '--project', project)).code, 0);
  assert.deepEqual(snapshot(project), before, 'a second install moved or copied the entry');
  assert.equal((await cli('uninstall', 'opencode', '--project', project)).code, 0);
  assert.equal(readFileSync(join(project, 'opencode.jsonc'), 'utf8'), HOST_FILES.opencode['opencode.jsonc']);
  assert.equal(readFileSync(join(project, 'opencode.json'), 'utf8'), plain);
});

test('codex: uninstall names every key the user had added to our entry that it removes with it', async (t) => {
  const project = tempProject(t);
  assert.equal((await cli('install', 'codex', '--project', project)).code, 0);
  const path = join(project, '.codex/config.toml');
  writeFileSync(path, readFileSync(path, 'utf8')
    .replace(/^(args = .*)$/m, '$1\nstartup_timeout_sec = 30\n\n[mcp_servers.opencomms.env]\nOPENCOMMS_NO_SPAWN = "1"'));
  const dry = await cliProcess('uninstall', 'codex', '--project', project, '--dry-run');
  assert.match(dry.stdout, /startup_timeout_sec = 30 \(in \[mcp_servers\.opencomms\]\)/);
  const { code, stdout } = await cli('uninstall', 'codex', '--project', project);
  assert.equal(code, 0);
  assert.match(stdout, /startup_timeout_sec = 30 \(in \[mcp_servers\.opencomms\]\)/);
  assert.match(stdout, /OPENCOMMS_NO_SPAWN = "1" \(in \[mcp_servers\.opencomms\.env\]\)/);
  assert.doesNotMatch(stdout, /OPENCOMMS_MEMBER_ID|command = |args = /, 'our own keys are not the user\'s additions');
});

test('gemini-cli: uninstall names the keys the user had added to our server entry', async (t) => {
  const project = tempProject(t);
  assert.equal((await cli('install', 'gemini-cli', '--project', project)).code, 0);
  const path = join(project, '.gemini/settings.json');
  const settings = JSON.parse(readFileSync(path, 'utf8'));
  settings.mcpServers.opencomms.trust = true;
  settings.mcpServers.opencomms.env = { EXTRA: '1' };
  writeFileSync(path, JSON.stringify(settings, null, 2));
  const { code, stdout } = await cli('uninstall', 'gemini-cli', '--project', project);
  assert.equal(code, 0);
  assert.match(stdout, /trust: true/);
  assert.match(stdout, /env\.EXTRA: "1"/);
  assert.doesNotMatch(stdout, /OPENCOMMS_MEMBER_ID/);
});

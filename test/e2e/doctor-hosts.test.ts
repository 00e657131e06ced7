// doctor reads every host config with the parsers install uses: a file with
// comments or trailing commas, which install edits and the host reads, is a
// working set-up, not a broken one. Files a host reads more strictly:
// doctor-strict-json.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject } from '../helpers/server';
import { tempHome, trustFlags, writeFiles } from '../hosts/install-support';

const COMMENTED: Record<string, Record<string, string>> = {
  // Gemini CLI takes comments there, not a trailing comma (doctor-strict-json.test.ts).
  'gemini-cli': { '.gemini/settings.json': '{\n  // my look\n  "ui": { "theme": "Default" } /* mine */\n}\n' },
  vscode: { '.vscode/mcp.json': '{\n  /* servers */\n  "servers": {},\n}\n' },
  cursor: { '.cursor/mcp.json': '// cursor servers\n{ "mcpServers": {} }\n' },
};

for (const [host, files] of Object.entries(COMMENTED)) {
  test(`${host}: doctor passes a commented config that install edited, and finds our entry in it`, async (t) => {
    const project = tempProject(t);
    writeFiles(project, files);
    const env = { HOME: tempHome(t), CODEX_HOME: undefined };
    // The gemini-cli file holds a setting of the user's, which --apply trusts only once the user says they read it.
    const read = host === 'gemini-cli' ? ['--i-have-read-the-project-config'] : [];
    const installed = await runCli(['install', host, '--project', project, ...trustFlags(host), ...read], { cwd: tmpdir(), env });
    assert.equal(installed.code, 0, installed.stderr);
    const { code, stdout } = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env });
    assert.doesNotMatch(stdout, /FAIL/, stdout);
    assert.equal(code, 0, stdout);
    assert.match(stdout, new RegExp(`ok {3}${host} \\(`), stdout);
  });
}

test('codex: doctor reads our entry as the TOML scanner does (literal strings, an array over several lines)', async (t) => {
  const project = tempProject(t);
  const env = { HOME: tempHome(t), CODEX_HOME: undefined };
  assert.equal((await runCli(['install', 'codex', '--project', project, '--apply'], { cwd: tmpdir(), env })).code, 0);
  const path = join(project, '.codex/config.toml');
  const text = readFileSync(path, 'utf8');
  const args = /^args = \[(.*)\]$/m.exec(text)![1].split(', ').map((quoted) => `'${JSON.parse(quoted)}'`);
  writeFileSync(path, text.replace(/^args = .*$/m, `args = [\n  ${args.join(',\n  ')},\n] # ours`));
  const { code, stdout } = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env });
  assert.doesNotMatch(stdout, /FAIL/, stdout);
  assert.equal(code, 0, stdout);
  assert.match(stdout, /ok {3}codex \(\.codex\/config\.toml\): starts .*opencomms\.js/);
});

test('doctor still fails a config that is JSON neither with nor without comments, naming the file', async (t) => {
  const project = tempProject(t);
  writeFiles(project, { '.gemini/settings.json': '{\n  // half\n  "mcpServers": {\n' });
  const { code, stdout } = await runCli(['doctor', '--project', project], { cwd: tmpdir() });
  assert.equal(code, 1);
  assert.match(stdout, /FAIL gemini-cli \(\.gemini\/settings\.json\): .*not valid JSON, with or without comments/);
});

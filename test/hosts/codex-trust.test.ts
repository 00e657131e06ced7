// Codex's hook trust: the hash is Codex's own, so the lines install prints
// are the ones Codex accepts. The vector below came from the real Codex CLI
// 0.171.0: `codex app-server` hooks/list reported this currentHash for our
// SessionStart hook in /tmp/trust-exp/proj (scripts/check-hosts.sh checks the
// same against whatever Codex it installs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyCodexTrust, codexEventLabel, codexHookHash, codexTrustEntries, codexTrustMarker, readCodexTrust, removeCodexTrust } from '../../src/hosts/codex-trust';
import { scanSections } from '../../src/hosts/toml-scanner';

const PROJECT = '/tmp/trust-exp/proj';
const COMMAND = `OPENCOMMS_HOST=codex node "${PROJECT}/.opencomms/opencomms.js" hook --project "${PROJECT}"`;
const HOOKS = JSON.stringify({ hooks: Object.fromEntries(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']
  .map((event) => [event, [{ hooks: [{ type: 'command', command: COMMAND, timeout: 15 }] }]])) });

test('the hook hash equals the one the real Codex CLI reports for the same hook', () => {
  assert.equal(codexHookHash('SessionStart', { command: COMMAND, timeout: 15 }),
    'sha256:e0ff10776692c3016dbf3b36c9b0d66b6128d3fcc557bb5bf2218db319ce2bed');
  assert.equal(codexHookHash('PreToolUse', { command: COMMAND, timeout: 15 }),
    'sha256:0be3d53678e6f4593a11d5e7f5caf82153f3283d36f353c189802483f37b4042');
  assert.equal(codexEventLabel('UserPromptSubmit'), 'user_prompt_submit');
});

test('the trust entries key each of our hooks by its file, event label and position, after the user\'s own hooks', () => {
  const hooks = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo mine' }] }, { hooks: [{ type: 'command', command: COMMAND, timeout: 15 }] }] } });
  const entries = codexTrustEntries(PROJECT, hooks);
  assert.deepEqual(entries.map((e) => e.path), [['projects', PROJECT], ['hooks', 'state', `${PROJECT}/.codex/hooks.json:stop:1:0`]]);
});

test('apply adds one marked block after a blank line in the file\'s line endings, a second apply changes nothing, remove gives the bytes back', () => {
  const entries = codexTrustEntries(PROJECT, HOOKS);
  const original = '# mine\r\nmodel = "o3"\r\n\r\n[mcp_servers.x]\r\ncommand = "x" # keep\r\n';
  const plan = applyCodexTrust(original, PROJECT, entries);
  assert.equal(plan.added.length, 6);
  assert.ok(plan.after.startsWith(`${original}\r\n# Trust for OpenComms in "${PROJECT}"`));
  assert.equal(plan.after.replace(/\r\n/g, '').includes('\n'), false, 'a bare LF in a CRLF file');
  assert.ok(readCodexTrust(plan.after, entries).every((f) => f.state === 'trusted'));
  assert.equal(applyCodexTrust(plan.after, PROJECT, entries).after, plan.after);
  assert.equal(removeCodexTrust(plan.after, PROJECT), original);
});

test('a project the user trusted already is left to the user: only the hooks go into our block, and remove leaves the user\'s table', () => {
  const entries = codexTrustEntries(PROJECT, HOOKS);
  const original = `[projects."${PROJECT}"]\ntrust_level = "trusted"\n`;
  const plan = applyCodexTrust(original, PROJECT, entries);
  assert.equal(plan.added.length, 5);
  assert.equal(removeCodexTrust(plan.after, PROJECT), original);
});

test('an outdated hash of the user\'s is updated where it stands; an untrusted project and a hook turned off are refused', () => {
  const entries = codexTrustEntries(PROJECT, HOOKS);
  const key = `${PROJECT}/.codex/hooks.json:stop:0:0`;
  const original = `[projects."${PROJECT}"]\ntrust_level = "untrusted"\n\n[hooks.state."${key}"]\ntrusted_hash = "sha256:old"\n\n` +
    `[hooks.state."${PROJECT}/.codex/hooks.json:session_start:0:0"]\nenabled = false\n`;
  const plan = applyCodexTrust(original, PROJECT, entries);
  assert.deepEqual(plan.updated.map((e) => e.path[2]), [key]);
  assert.deepEqual(plan.refused.map((f) => f.state).sort(), ['different', 'disabled']);
  assert.match(plan.after, new RegExp(`\\[hooks\\.state\\."${key.replace(/[.*]/g, '\\$&')}"\\]\ntrusted_hash = "sha256:[0-9a-f]{64}"\n`));
  assert.match(plan.after, /trust_level = "untrusted"/);
});

test('trust set by an inline table is refused rather than duplicated', () => {
  assert.throws(() => applyCodexTrust(`projects = { "${PROJECT}" = { trust_level = "trusted" } }\n`, PROJECT, codexTrustEntries(PROJECT, HOOKS)));
});

test('only the groups install wrote are trusted: our marker under another event, or with another hook beside it, gets no entry', () => {
  const lookalike = `sh -c 'id' # ${COMMAND}`;
  const hooks = JSON.parse(HOOKS);
  hooks.hooks.PreCompact = [{ hooks: [{ type: 'command', command: COMMAND, timeout: 15 }] }];
  hooks.hooks.SessionEnd = [{ hooks: [{ type: 'command', command: lookalike }] }];
  hooks.hooks.Stop.push({ hooks: [{ type: 'command', command: COMMAND, timeout: 15 }, { type: 'command', command: 'id' }] });
  for (const command of [COMMAND, undefined]) {
    const labels = codexTrustEntries(PROJECT, JSON.stringify(hooks), command).map((e) => e.path[2] ?? e.path[1]);
    assert.deepEqual(labels, [PROJECT, ...['session_start', 'user_prompt_submit', 'pre_tool_use', 'post_tool_use', 'stop'].map((label) => `${PROJECT}/.codex/hooks.json:${label}:0:0`)]);
  }
  assert.deepEqual(codexTrustEntries(PROJECT, HOOKS, 'OPENCOMMS_HOST=codex node "/else/.opencomms/opencomms.js" hook').length, 1, 'another command is not the one install wrote');
});

test('the comment that opens our block names the path escaped: a path with a line break adds no table of its own', () => {
  const project = '/tmp/x\n[projects."/"]\ntrust_level = "trusted"\n#';
  const plan = applyCodexTrust('', project, codexTrustEntries(project, undefined));
  assert.deepEqual(scanSections(plan.after).sections.map((s) => s.path), [['projects', project]]);
  assert.equal(plan.after.split('\n')[0], codexTrustMarker(project));
  assert.equal(removeCodexTrust(plan.after, project), '');
});

test('uninstall still finds a block whose comment names the path bare, as older installs wrote it', () => {
  const entries = codexTrustEntries(PROJECT, HOOKS);
  const written = applyCodexTrust('model = "o3"\n', PROJECT, entries).after;
  const older = written.replace(codexTrustMarker(PROJECT), codexTrustMarker(PROJECT).replace(`"${PROJECT}"`, PROJECT));
  assert.notEqual(older, written);
  assert.equal(removeCodexTrust(older, PROJECT), 'model = "o3"\n');
});

// No agent writes under .opencomms/, whoever holds what: a tool call or a
// shell command that plainly writes there is denied before it runs, through
// real hook processes (dist), on every host (PROTOCOL 8.4; docs/threat-model.md).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { runCli } from '../helpers/server';
import { channelWith, claudeEvent, codexEvent, geminiEvent, tempProject } from './support';

const CLEAN_ENV = { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined, OPENCOMMS_HOST: undefined };
const CLAUDE = { OPENCOMMS_HOST: 'claude-code' };

/** A project with a channel and no reservation at all. */
async function project(t: TestContext): Promise<string> {
  const dir = tempProject(t);
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'x'), 'x\n');
  await channelWith(dir, 'review', [{ id: 'alice-1', role: 'author', host: 'mcp' }]);
  return dir;
}

async function hookAnswer(dir: string, event: Record<string, unknown>, env: Record<string, string> = CLAUDE): Promise<Record<string, any>> {
  const run = await runCli(['hook', '--project', dir], { input: JSON.stringify(event), env: { ...CLEAN_ENV, ...env } });
  assert.match(run.stdout, /^\{.*\}\n$/s, `stdout: ${run.stdout} stderr: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, any>;
}

function bash(dir: string, command: string) {
  return claudeEvent('PreToolUse', 'bob-session', { cwd: dir, tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_s' });
}

for (const [command, named] of [
  ['echo \'{"schema_version":2}\' > .opencomms/state.json', '.opencomms/state.json'],
  ['rm -rf .opencomms', '.opencomms'],
  ['sed -i s/a/b/ .opencomms/state.json', '.opencomms/state.json'],
  ['cp x .opencomms/pins/p.json', '.opencomms/pins/p.json'],
  ['mv .opencomms/state.json kept.json', '.opencomms/state.json'],
  ['echo y | tee .opencomms/shell/k.json', '.opencomms/shell/k.json'],
  ['cd src && echo x >> ../.opencomms/state.json', '.opencomms/state.json'],
  ['truncate -s 0 .opencomms/state.json', '.opencomms/state.json'],
  ['rm .opencomms/shell/*', '.opencomms/shell/*'],
  ['git checkout -- .opencomms/state.json', '.opencomms/state.json'],
] as const) {
  test(`Bash \`${command}\` is denied with nothing held by anyone, naming ${named}`, async (t) => {
    const dir = await project(t);
    const out = (await hookAnswer(dir, bash(dir, command))).hookSpecificOutput;
    assert.equal(out?.permissionDecision, 'deny');
    assert.match(out.permissionDecisionReason, /^OpenComms refused this shell command on purpose, before it ran \(nothing failed\)/);
    assert.ok(out.permissionDecisionReason.includes(JSON.stringify(named)), out.permissionDecisionReason);
    assert.match(out.permissionDecisionReason, /" under \.opencomms\/, where OpenComms keeps/);
  });
}

test('an edit tool writing under .opencomms/ is denied as an edit', async (t) => {
  const dir = await project(t);
  const write = claudeEvent('PreToolUse', 'bob-session', { cwd: dir, tool_name: 'Write', tool_input: { file_path: join(dir, '.opencomms', 'state.json'), content: '{}' } });
  const out = (await hookAnswer(dir, write)).hookSpecificOutput;
  assert.equal(out?.permissionDecision, 'deny');
  assert.match(out.permissionDecisionReason, /^OpenComms refused this edit on purpose \(nothing failed\): it writes ".opencomms\/state.json" under .opencomms\//);
});

test('reading .opencomms/, and writes that only look alike, pass', async (t) => {
  const dir = await project(t);
  for (const command of ['cat .opencomms/state.json', 'ls -la .opencomms', 'rm -rf *', 'echo x > opencomms.txt', 'echo x > src/.opencomms-notes']) {
    assert.deepEqual(await hookAnswer(dir, bash(dir, command)), {}, command);
  }
});

test('a project with no state yet: planting one is denied too', async (t) => {
  const dir = tempProject(t);
  const out = (await hookAnswer(dir, bash(dir, 'mkdir -p .opencomms && echo \'{}\' > .opencomms/state.json'))).hookSpecificOutput;
  assert.equal(out?.permissionDecision, 'deny');
  assert.deepEqual(await hookAnswer(dir, bash(dir, 'echo x > notes.txt')), {}, 'any other write still passes, creating nothing');
});

test('Codex and Gemini CLI shell calls writing under .opencomms/ are denied in their own formats', async (t) => {
  const dir = await project(t);
  const codex = codexEvent('PreToolUse', 'codex-session', { cwd: dir, tool_name: 'Bash', tool_input: { command: 'rm .opencomms/state.json' } });
  assert.equal((await hookAnswer(dir, codex, {})).hookSpecificOutput?.permissionDecision, 'deny');
  const gemini = geminiEvent('BeforeTool', 'gemini-session', { cwd: dir, tool_name: 'run_shell_command', tool_input: { command: 'echo x > .opencomms/state.json' } });
  const answer = await hookAnswer(dir, gemini, {});
  assert.equal(answer.decision, 'deny');
  assert.match(answer.reason, /under \.opencomms\//);
});

// Shell tool calls and held files, through real hook processes (dist): a
// command that plainly writes a held path is denied before it runs, a write
// the parser cannot see is reported after it, and nothing is recorded when
// nobody else holds anything.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { reservePaths } from '../../src/engine/index';
import { changedSinceRecord } from '../../src/hooks/shell-check';
import { shellDirOf, writeShellRecord } from '../../src/local/side-files';
import { runCli } from '../helpers/server';
import { channelWith, claudeEvent, codexEvent, geminiEvent, stateOf, tempProject } from './support';
import { edit } from '../helpers/edit';

const HOLDER = 'alice-1';
const WRITER = 'bob-1';
const CLEAN_ENV = { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined, OPENCOMMS_HOST: undefined };

async function hookProcess(project: string, event: Record<string, unknown>, env: Record<string, string> = {}) {
  const run = await runCli(['hook', '--project', project], { input: JSON.stringify(event), env: { ...CLEAN_ENV, ...env } });
  assert.match(run.stdout, /^\{.*\}\n$/s, `stdout: ${run.stdout} stderr: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, any>;
}

async function held(t: Parameters<typeof tempProject>[0], paths = ['src/a.ts'], holder = HOLDER) {
  const project = tempProject(t);
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(project, 'x'), 'x\n');
  const store = await channelWith(project, 'review', [
    { id: HOLDER, role: 'author', host: 'mcp' },
    { id: WRITER, role: 'reviewer', host: 'claude-code', hostSessionId: 'bob-session' },
  ]);
  if (paths.length > 0) {
    await edit(store, (state, ctx) => reservePaths(state, {
      channel: 'review', session_id: holder, paths, exclusive: true, reason: null, project_dir: project,
    }, ctx));
  }
  return { project, store };
}

function bash(project: string, name: string, command: string) {
  return claudeEvent(name, 'bob-session', { cwd: project, tool_name: 'Bash', tool_input: { command, description: 'run it' }, tool_use_id: 'toolu_9' });
}

const CLAUDE = { OPENCOMMS_HOST: 'claude-code' };

for (const command of [
  'echo x > src/a.ts',
  "sed -i 's/1/2/' src/a.ts",
  'echo x | tee -a src/a.ts',
  'cp x src/a.ts',
  'mv src/a.ts elsewhere.ts',
  'rm -f src/a.ts',
  'truncate -s 0 src/a.ts',
]) {
  test(`Claude Code: Bash \`${command}\` of a held file is denied, naming the holder`, async (t) => {
    const { project } = await held(t);
    const out = (await hookProcess(project, bash(project, 'PreToolUse', command), CLAUDE)).hookSpecificOutput;
    assert.equal(out?.permissionDecision, 'deny');
    assert.match(out.permissionDecisionReason, /src\/a\.ts is reserved exclusively by author \(alice-1\)/);
    // Shown after "PreToolUse:Bash hook error:" by Claude Code: it must read as a deliberate refusal of the command.
    assert.match(out.permissionDecisionReason, /^OpenComms refused this shell command on purpose, before it ran \(nothing failed\): it writes a file another agent holds\./);
  });
}

test('Claude Code: Bash commands that only read a held file pass', async (t) => {
  const { project } = await held(t);
  for (const command of ['cat src/a.ts', 'wc -l < src/a.ts', 'grep -n a src/a.ts | head > /dev/null']) {
    assert.deepEqual(await hookProcess(project, bash(project, 'PreToolUse', command), CLAUDE), {}, command);
  }
});

test('Codex exec_command (argv, workdir) and Gemini run_shell_command writing a held file are denied in each host\'s format', async (t) => {
  const { project } = await held(t);
  const codex = codexEvent('PreToolUse', 'bob-session', { cwd: project, tool_name: 'exec_command', tool_input: { command: ['bash', '-lc', 'echo x >> a.ts'], workdir: 'src' } });
  assert.equal((await hookProcess(project, codex)).hookSpecificOutput?.permissionDecision, 'deny');
  const gemini = geminiEvent('BeforeTool', 'gemini-session', { cwd: project, tool_name: 'run_shell_command', tool_input: { command: 'cd src && rm a.ts' } });
  const answer = await hookProcess(project, gemini);
  assert.equal(answer.decision, 'deny');
  assert.match(answer.reason, /src\/a\.ts is reserved exclusively by author \(alice-1\)/);
});

test('a write the parser cannot see is reported after the call to the writer, and to the holder as a system message naming the file, the writer and the time', async (t) => {
  const { project, store } = await held(t);
  const command = "node -e \"require('fs').writeFileSync('src/a.ts', 'changed')\"";
  assert.deepEqual(await hookProcess(project, bash(project, 'PreToolUse', command), CLAUDE), {}, 'the parser cannot see this write');
  execFileSync('sh', ['-c', command], { cwd: project });
  const before = Date.now();
  const answer = await hookProcess(project, bash(project, 'PostToolUse', command), CLAUDE);
  const text = answer.hookSpecificOutput?.additionalContext as string;
  assert.equal(answer.hookSpecificOutput.hookEventName, 'PostToolUse');
  assert.match(text, /your shell command changed a file another agent holds exclusively:\n- src\/a\.ts \(held exclusively by author \(alice-1\) in channel "review"\)/);
  const notices = Object.values(stateOf(store).messages).filter((e) => e.message_type === 'system' && e.recipient_session_id === HOLDER);
  assert.equal(notices.length, 1);
  assert.match(notices[0]!.content, /src\/a\.ts, which you hold exclusively, changed during a shell command of reviewer \(bob-1\), which ended at (\d{4}-\d\d-\d\dT[\d:.]+Z)/);
  const at = Date.parse(/ended at (\S+?Z)/.exec(notices[0]!.content)![1]!);
  assert.ok(Math.abs(at - before) < 60_000, 'the time of the call');
  assert.deepEqual(readdirSync(join(project, '.opencomms', 'shell')).filter((n) => n.endsWith('.json')), [], 'the record was taken');
});

for (const [what, command, paths] of [
  ['removed', "node -e \"require('fs').unlinkSync('src/a.ts')\"", ['src/a.ts']],
  ['created where a held path was absent', "node -e \"require('fs').writeFileSync('src/new.ts', 'n')\"", ['src/new.ts']],
  ['replaced by a rename that keeps the old mtime', "node -e \"const fs=require('fs');fs.writeFileSync('t','y');fs.utimesSync('t',1,1);fs.renameSync('t','src/a.ts')\"", ['src/a.ts']],
  ['written under a glob reservation', "node -e \"require('fs').writeFileSync('src/a.ts', 'g')\"", ['src/**']],
  // Nothing happens in src/, but the held file's change time moves.
  ['written through a new hard link', 'ln src/a.ts elsewhere.ts && echo x >> elsewhere.ts', ['src/a.ts']],
] as const) {
  test(`a held file ${what} during a shell call is reported after it`, async (t) => {
    const { project } = await held(t, [...paths]);
    assert.deepEqual(await hookProcess(project, bash(project, 'PreToolUse', command), CLAUDE), {});
    execFileSync('sh', ['-c', command], { cwd: project });
    const answer = await hookProcess(project, bash(project, 'PostToolUse', command), CLAUDE);
    const file = paths[0] === 'src/new.ts' ? 'src/new.ts' : 'src/a.ts';
    assert.match(answer.hookSpecificOutput?.additionalContext ?? '', new RegExp(`changed a file another agent holds exclusively:\\n- ${file.replace('.', '\\.')} `));
  });
}

test('after the call the record is judged and removed; without a record nothing is judged', (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'a.ts'), 'before\n');
  const key = 'ab'.repeat(16);
  writeShellRecord(project, key, JSON.stringify({ patterns: [], present: ['src/a.ts'] }), Date.now());
  writeFileSync(join(project, 'src', 'a.ts'), 'after the record\n');
  assert.deepEqual(changedSinceRecord(project, key), ['src/a.ts']);
  assert.equal(existsSync(join(shellDirOf(project), `${key}.json`)), false, 'the record was removed');
  assert.deepEqual(changedSinceRecord(project, key), [], 'no record: nothing changed');
});

test('many held files in one folder (listed once, not probed one by one): only the one written is reported, not the ones that stay absent', async (t) => {
  const paths = Array.from({ length: 20 }, (_, i) => `src/m${i}.ts`);
  const { project } = await held(t, paths);
  for (const p of paths.slice(0, 10)) writeFileSync(join(project, p), 'x');
  const command = "node -e \"require('fs').writeFileSync('src/m3.ts', 'changed')\"";
  assert.deepEqual(await hookProcess(project, bash(project, 'PreToolUse', command), CLAUDE), {});
  execFileSync('sh', ['-c', command], { cwd: project });
  const text = (await hookProcess(project, bash(project, 'PostToolUse', command), CLAUDE)).hookSpecificOutput?.additionalContext ?? '';
  assert.match(text, /changed a file another agent holds exclusively:\n- src\/m3\.ts /);
  assert.doesNotMatch(text, /m1[0-9]\.ts|m4\.ts/);
});

test('a shell call that changes no held file is not reported, and the state is not written', async (t) => {
  const { project, store } = await held(t);
  assert.deepEqual(await hookProcess(project, bash(project, 'PreToolUse', 'ls'), CLAUDE), {});
  const stateFile = join(project, '.opencomms', 'state.json');
  const was = statSync(stateFile);
  assert.deepEqual(await hookProcess(project, bash(project, 'PostToolUse', 'ls'), CLAUDE), {});
  const now = statSync(stateFile);
  assert.deepEqual([now.ino, now.mtimeMs], [was.ino, was.mtimeMs]);
  assert.equal(Object.values(stateOf(store).messages).length, 0);
});

test('nothing is recorded before a shell call when nobody else holds a file', async (t) => {
  const nobody = await held(t, []);
  assert.deepEqual(await hookProcess(nobody.project, bash(nobody.project, 'PreToolUse', 'echo x > src/a.ts'), CLAUDE), {});
  assert.equal(existsSync(join(nobody.project, '.opencomms', 'shell')), false);
  const own = await held(t, ['src/a.ts'], WRITER);
  assert.deepEqual(await hookProcess(own.project, bash(own.project, 'PreToolUse', 'echo x > src/a.ts'), CLAUDE), {});
  assert.equal(existsSync(join(own.project, '.opencomms', 'shell')), false, 'the writer\'s own reservation is not watched');
});

test('PostToolUse after an edit that collides with nothing writes state.json 0 times', async (t) => {
  const { project } = await held(t, []);
  const stateFile = join(project, '.opencomms', 'state.json');
  const was = statSync(stateFile);
  const edit = claudeEvent('PostToolUse', 'bob-session', { cwd: project, tool_name: 'Edit', tool_input: { file_path: join(project, 'src', 'b.ts') }, tool_response: { success: true } });
  for (let i = 0; i < 3; i += 1) assert.deepEqual(await hookProcess(project, edit, CLAUDE), {});
  const now = statSync(stateFile);
  assert.deepEqual([now.ino, now.mtimeMs, now.size], [was.ino, was.mtimeMs, was.size], 'state.json untouched');
  assert.equal(readdirSync(join(project, '.opencomms')).filter((n) => n.endsWith('.tmp')).length, 0);
  assert.equal(existsSync(join(project, '.opencomms', 'edits', `${WRITER}.jsonl`)), true, 'the edit went to the member\'s log');
  assert.equal((statSync(join(project, '.opencomms', 'edits', `${WRITER}.jsonl`)).mode & 0o777), 0o600);
});

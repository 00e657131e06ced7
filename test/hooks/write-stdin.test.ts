// Codex's write_stdin and the shell check, through real hook processes
// (dist). Codex 0.171.0 sends no hook event named write_stdin: the command
// that started the process was checked as `Bash` before it ran, and its
// PostToolUse (same tool_use_id, same command) comes when a write_stdin poll
// sees the process exit; what the typed lines wrote is reported then. A hook
// event that does name write_stdin is judged like any shell call, on its
// `chars` (docs/internals.md, "The pre-tool check").
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { reservePaths } from '../../src/engine/index';
import { runCli } from '../helpers/server';
import { channelWith, codexEvent, stateOf, tempProject } from './support';
import { edit } from '../helpers/edit';

const CLEAN_ENV = { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined, OPENCOMMS_HOST: undefined };

async function held(t: TestContext) {
  const project = tempProject(t);
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'a.ts'), 'export const a = 1;\n');
  const store = await channelWith(project, 'review', [{ id: 'alice-1', role: 'author', host: 'mcp' }]);
  await edit(store, (state, ctx) => reservePaths(state, {
    channel: 'review', session_id: 'alice-1', paths: ['src/a.ts'], exclusive: true, reason: null, project_dir: project,
  }, ctx));
  return { project, store };
}

async function hookAnswer(project: string, event: Record<string, unknown>): Promise<Record<string, any>> {
  const run = await runCli(['hook', '--project', project], { input: JSON.stringify(event), env: CLEAN_ENV });
  assert.match(run.stdout, /^\{.*\}\n$/s, `stdout: ${run.stdout} stderr: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, any>;
}

function writeStdin(project: string, name: string, chars: string, callId = 'call_ws_1') {
  return codexEvent(name, 'codex-thread', { cwd: project, tool_name: 'write_stdin', tool_input: { session_id: 4105, chars, yield_time_ms: 500 }, tool_use_id: callId });
}

test('a write_stdin event whose chars plainly write a held file is denied before they are typed, naming the holder', async (t) => {
  const { project } = await held(t);
  const out = (await hookAnswer(project, writeStdin(project, 'PreToolUse', 'echo x > src/a.ts\n'))).hookSpecificOutput;
  assert.equal(out?.permissionDecision, 'deny');
  assert.match(out.permissionDecisionReason, /^OpenComms refused this shell command on purpose, before it ran/);
  assert.match(out.permissionDecisionReason, /src\/a\.ts is reserved exclusively by author \(alice-1\)/);
});

test('a write_stdin event whose write the parser cannot see is recorded before and reported after, by its own call id', async (t) => {
  const { project, store } = await held(t);
  const chars = "python3 -c \"open('src/a.ts','w').write('typed')\"\n";
  assert.deepEqual(await hookAnswer(project, writeStdin(project, 'PreToolUse', chars)), {});
  writeFileSync(join(project, 'src', 'a.ts'), 'typed');
  const answer = await hookAnswer(project, writeStdin(project, 'PostToolUse', chars));
  assert.match(answer.hookSpecificOutput?.additionalContext ?? '', /your shell command changed a file another agent holds exclusively:\n- src\/a\.ts /);
  const notices = Object.values(stateOf(store).messages).filter((e) => e.message_type === 'system' && e.recipient_session_id === 'alice-1');
  assert.equal(notices.length, 1);
});

test('what Codex 0.171.0 sends: Bash `sh` before, lines typed through write_stdin with no event, and Bash `sh` after once a poll sees it exit: the write is reported then', async (t) => {
  const { project, store } = await held(t);
  const start = (name: string, extra: Record<string, unknown> = {}) => codexEvent(name, 'codex-thread', {
    cwd: project, tool_name: 'Bash', tool_input: { command: 'sh' }, tool_use_id: 'call_exec_1', ...extra,
  });
  assert.deepEqual(await hookAnswer(project, start('PreToolUse')), {}, 'an interactive shell writes nothing by its command line');
  // The model types `echo … > src/a.ts` into the shell: Codex runs no hook for it.
  writeFileSync(join(project, 'src', 'a.ts'), 'typed through write_stdin\n');
  const answer = await hookAnswer(project, start('PostToolUse', { tool_response: 'exit\r\n' }));
  assert.match(answer.hookSpecificOutput?.additionalContext ?? '', /your shell command changed a file another agent holds exclusively:\n- src\/a\.ts /);
  const notices = Object.values(stateOf(store).messages).filter((e) => e.message_type === 'system' && e.recipient_session_id === 'alice-1');
  assert.equal(notices.length, 1);
  assert.match(notices[0]!.content, /src\/a\.ts, which you hold exclusively, changed during a shell command of a codex session/);
});

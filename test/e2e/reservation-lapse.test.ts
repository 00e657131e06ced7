// A reservation refusal names since when its holder is away and when it lapses
// (issue 35, item 14), through real processes: the holder's server is killed,
// then the real hook CLI's deny and another member's opencomms_reserve both
// say "away since" that moment and "until" 10 minutes after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli, startServer, tempProject } from '../helpers/server';
import { member, memberEnv, ok, refused } from './tools-support';
import { openStore } from '../../src/store';
import { formatIsoTime, presenceOf, HOLDER_AWAY_GRACE_MS } from '../../src/engine';
import { isRecordedProcessAlive } from '../../src/process/liveness';

test('after the holder\'s server dies, the hook\'s deny and a reserve refusal say since when it is away and when the reservation lapses', async (t) => {
  const project = tempProject(t);
  const holder = startServer(t, { project, args: ['--project', project, '--host', 'codex'], env: memberEnv(undefined) });
  await holder.initialize();
  await ok(holder, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  await ok(holder, 'opencomms_reserve', { channel: 'dev', paths: ['src/a.ts'], ttl_minutes: 120 });
  const holderId = (await ok(holder, 'opencomms_status', {})).data.member_id as string;
  const other = await member(t, project, 'sess_other');
  await ok(other, 'opencomms_join', { channel: 'dev', role: 'reviewer', role_prompt: 'review' });
  holder.child.kill('SIGKILL');
  await holder.exited;
  const since = presenceOf(openStore({ projectDir: project }).snapshot(), holderId, Date.now(), (proc) => isRecordedProcessAlive(proc)).away_since!;
  const lapse = since + HOLDER_AWAY_GRACE_MS;

  const event = { hook_event_name: 'PreToolUse', session_id: 'fresh-session', cwd: project, tool_name: 'Edit', tool_input: { file_path: join(project, 'src', 'a.ts'), old_string: 'a', new_string: 'b' } };
  const run = await runCli(['hook'], { input: JSON.stringify(event), env: { OPENCOMMS_HOST: 'claude-code', OPENCOMMS_MEMBER_ID: undefined, CLAUDE_PROJECT_DIR: project } });
  assert.equal(run.code, 0, run.stderr);
  const reason: string = JSON.parse(run.stdout).hookSpecificOutput.permissionDecisionReason;
  assert.ok(reason.includes(`away since ${formatIsoTime(since)}`), reason);
  assert.ok(reason.includes(`until ${formatIsoTime(lapse)}`), reason);

  const refusal = await refused(other, 'opencomms_reserve', { channel: 'dev', paths: ['src/a.ts'] }, 'reservation_conflict');
  assert.deepEqual([refusal.data.conflicts[0].holder_away_since, refusal.data.conflicts[0].lapses_at], [since, lapse]);
  assert.ok(refusal.message.includes(`away since ${formatIsoTime(since)}`), refusal.message);
});

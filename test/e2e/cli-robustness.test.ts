// The command line on broken set-ups and out-of-range arguments: doctor reports instead of crashing,
// and a hook --wait timeout longer than a timer can hold is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, runCli, tempProject } from '../helpers/server';
import { claudeEvent } from '../hooks/support';
import { create, member } from './tools-support';

test('hook --wait refuses a --timeout longer than a timer can hold (it would end at once), and waits for one that fits', async (t) => {
  const project = tempProject(t);
  const alice = await member(t, project, 'sess_alice');
  await create(alice, 'review', 'writer');
  await alice.close();
  const env: NodeJS.ProcessEnv = { ...process.env, OPENCOMMS_MEMBER_ID: 'sess_alice' };
  delete env.OPENCOMMS_PROJECT_DIR;
  const refused = spawnSync(process.execPath, [DIST, 'hook', '--wait', '--timeout', '600h', '--project', project], {
    env, input: JSON.stringify(claudeEvent('Stop', 'host-session-a')), encoding: 'utf8', timeout: 10_000,
  });
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /--timeout takes a duration from 1ms to 596h/);
  // 596 h fits a timer: the waiter really waits (it is still there after a while).
  const child = spawn(process.execPath, [DIST, 'hook', '--wait', '--timeout', '596h', '--project', project], { env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin.end(JSON.stringify(claudeEvent('Stop', 'host-session-a')));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const exited = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 1_500);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  assert.equal(exited, false, `the waiter ended at once instead of waiting 596 h; stderr: ${stderr}`);
});

test('doctor --json on a project whose .opencomms/pins is a file prints a JSON report, not a crash', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, '.opencomms'));
  writeFileSync(join(project, '.opencomms', 'pins'), 'not a folder');
  const { code, stdout, stderr } = await runCli(['doctor', '--project', project, '--json']);
  assert.equal(code, 1);
  let report: any;
  assert.doesNotThrow(() => (report = JSON.parse(stdout)), `stdout is not JSON: ${JSON.stringify(stdout)}; stderr: ${stderr}`);
  assert.ok(report.checks.some((c: any) => c.status !== 'ok' && /pins/.test(`${c.name} ${c.message}`)), JSON.stringify(report));
});

test('doctor reports, never crashes, when .opencomms is a file or a host config is a folder', async (t) => {
  const project = tempProject(t);
  writeFileSync(join(project, '.opencomms'), 'not a folder');
  mkdirSync(join(project, '.mcp.json'));
  const { code, stdout, stderr } = await runCli(['doctor', '--project', project, '--json']);
  assert.equal(code, 1, stderr);
  const report = JSON.parse(stdout);
  assert.ok(report.checks.some((c: any) => c.status === 'fail'), JSON.stringify(report));
  assert.equal(stderr.includes('    at '), false, `a stack trace on stderr: ${stderr}`);
  const text = await runCli(['doctor', '--project', project]);
  assert.match(text.stdout, /FAIL/);
});

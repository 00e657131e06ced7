// Review F: defects in the command line, each shown by a test that fails on
// the code as reviewed. Runs the shipped dist/opencomms.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, runCli, tempProject } from '../helpers/server';
import { claudeEvent } from '../hooks/support';
import { create, member } from './tools-support';

test('hook --wait --timeout 600h waits (it does not end at once on a 32-bit timer overflow)', async (t) => {
  const project = tempProject(t);
  const alice = await member(t, project, 'sess_alice');
  await create(alice, 'review', 'writer');
  await alice.close();
  const env: NodeJS.ProcessEnv = { ...process.env, OPENCOMMS_MEMBER_ID: 'sess_alice' };
  delete env.OPENCOMMS_PROJECT_DIR;
  // 600 h is accepted by the parser as a valid duration (2,160,000,000 ms).
  const child = spawn(process.execPath, [DIST, 'hook', '--wait', '--timeout', '600h', '--project', project], { env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin.end(JSON.stringify(claudeEvent('Stop', 'host-session-a')));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const exited = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 2_500);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  assert.equal(exited, false, `the waiter ended at once instead of waiting 600 h; stderr: ${stderr}`);
});

test('doctor --json on a project whose .opencomms/pins is a file prints a JSON report, not a crash', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, '.opencomms'));
  writeFileSync(join(project, '.opencomms', 'pins'), 'not a folder');
  const { code, stdout, stderr } = await runCli(['doctor', '--project', project, '--json']);
  assert.equal(code, 1);
  let report: any;
  assert.doesNotThrow(() => (report = JSON.parse(stdout)), `stdout is not JSON: ${JSON.stringify(stdout)}; stderr: ${stderr}`);
  assert.ok(report.checks.some((c: any) => c.status !== 'ok' && /pins/.test(c.name)), JSON.stringify(report));
});

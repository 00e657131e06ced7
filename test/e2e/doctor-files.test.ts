// doctor tells the truth about what is under .opencomms/: entries OpenComms
// refuses to use (links, a folder where a file belongs) and modes that let
// other users read the mail, each with the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServer, tempProject } from '../helpers/server';

const IS_POSIX = process.platform !== 'win32';

test('doctor says a state.json that is a folder blocks every call and gives the fix, and the next change is refused naming it', async (t) => {
  const project = tempProject(t);
  const folder = join(project, '.opencomms', 'state.json');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'keep.txt'), 'mine');

  const report = await runCli(['doctor', '--project', project]);
  assert.equal(report.code, 1);
  const line = report.stdout.split('\n').find((l) => l.includes(' state:')) ?? '';
  assert.match(line, /^FAIL state: .*state\.json is a folder/);
  assert.match(line, /mv /);
  assert.doesNotMatch(line, /preserve/);

  const server = startServer(t, { project, env: { OPENCOMMS_MEMBER_ID: 'sess_a' } });
  const reply = await server.request('tools/call', { name: 'opencomms_create', arguments: { channel: 'c', role: 'r', role_prompt: 'p' } });
  const result = reply.result.structuredContent;
  assert.equal(result.data.reason, 'state_unwritable');
  assert.ok(result.message.includes(folder), result.message);
  assert.match(result.message, /is a folder/);
  assert.match(result.message, /move it/);
  assert.equal(statSync(folder).isDirectory(), true);
  assert.equal(readFileSync(join(folder, 'keep.txt'), 'utf8'), 'mine');
});

test('doctor fails on a link under .opencomms, naming it, and leaves it alone', async (t) => {
  const project = tempProject(t);
  const history = join(project, '.opencomms', 'history');
  mkdirSync(history, { recursive: true });
  const link = join(history, 'chn_a.jsonl');
  symlinkSync('/etc/hostname', link);
  const report = await runCli(['doctor', '--project', project, '--fix']);
  assert.equal(report.code, 1);
  assert.match(report.stdout, /FAIL .*history[/\\]chn_a\.jsonl is a link/);
  assert.equal(lstatSync(link).isSymbolicLink(), true);
});

test('doctor warns about folders and files other users can read, and --fix narrows them', { skip: !IS_POSIX }, async (t) => {
  const project = tempProject(t);
  const dir = join(project, '.opencomms');
  mkdirSync(join(dir, 'pins'), { recursive: true });
  writeFileSync(join(dir, 'state.json'), '{"schema_version":2,"channels":{},"messages":{},"queues":{},"delivered_to":{},"errors":[]}');
  writeFileSync(join(dir, 'pins', 'sess_a.json'), JSON.stringify({ member_id: 'sess_a', host: 'mcp', saved_at: 1 }));
  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'pins'), 0o755);
  chmodSync(join(dir, 'state.json'), 0o644);
  chmodSync(join(dir, 'pins', 'sess_a.json'), 0o644);

  const report = await runCli(['doctor', '--project', project]);
  const line = report.stdout.split('\n').find((l) => l.includes('modes:')) ?? '';
  assert.match(line, /^WARN modes: .*other users/);
  assert.match(line, /state\.json/);
  assert.match(line, /doctor --fix/);

  const fixed = await runCli(['doctor', '--project', project, '--fix']);
  assert.match(fixed.stdout, /modes: .*\(fixed\)/);
  for (const rel of ['.', 'pins']) assert.equal(statSync(join(dir, rel)).mode & 0o777, 0o700, rel);
  for (const rel of ['state.json', join('pins', 'sess_a.json')]) assert.equal(statSync(join(dir, rel)).mode & 0o777, 0o600, rel);
  assert.match((await runCli(['doctor', '--project', project])).stdout, /ok {3}modes: /);
  assert.deepEqual(readdirSync(join(dir, 'pins')), ['sess_a.json']);
});

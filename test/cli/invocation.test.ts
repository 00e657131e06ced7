import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { asInvoked, invokedCommand } from '../../src/cli/invocation';

function tempDir(t: import('node:test').TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-invocation-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a script under the working folder is shown relative to it, one elsewhere by its whole path, quoted when the shell needs it', (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist', 'opencomms.js'), '');
  assert.equal(invokedCommand({ script: join(dir, 'dist', 'opencomms.js'), cwd: dir, pathEnv: '' }), 'node dist/opencomms.js');
  assert.equal(invokedCommand({ script: '/opt/my tools/opencomms.js', cwd: dir, pathEnv: '' }), "node '/opt/my tools/opencomms.js'");
});

test('opencomms on PATH counts only when it resolves to this script, and npm\'s own node_modules/.bin never does', (t) => {
  const dir = tempDir(t);
  const script = join(dir, 'opencomms.js');
  writeFileSync(script, '');
  const [bin, npmBin, other] = [join(dir, 'bin'), join(dir, 'node_modules', '.bin'), join(dir, 'other')];
  for (const d of [bin, npmBin, other]) mkdirSync(d, { recursive: true });
  symlinkSync(script, join(npmBin, 'opencomms'));
  copyFileSync(script, join(other, 'opencomms'));
  const cwd = join(dir, 'elsewhere');
  assert.equal(invokedCommand({ script, cwd, pathEnv: [npmBin, other].join(delimiter) }), `node ${script}`);
  symlinkSync(script, join(bin, 'opencomms'));
  assert.equal(invokedCommand({ script, cwd, pathEnv: [other, bin].join(delimiter) }), 'opencomms');
  assert.equal(invokedCommand({ script: join(bin, 'opencomms'), cwd, pathEnv: bin }), 'opencomms');
});

test('only suggested subcommands are rewritten: not paths, tool names, or a program name before a colon', () => {
  const command = 'node dist/opencomms.js';
  assert.equal(asInvoked('run `opencomms resume review` or opencomms say x', command), 'run `node dist/opencomms.js resume review` or node dist/opencomms.js say x');
  for (const kept of ['.opencomms/opencomms.js --project', 'call opencomms_resume', 'opencomms watch: cannot read the state', 'the opencomms entry', 'opencomms.js install']) {
    assert.equal(asInvoked(kept, command), kept);
  }
  assert.equal(asInvoked('opencomms resume x', 'opencomms'), 'opencomms resume x');
});

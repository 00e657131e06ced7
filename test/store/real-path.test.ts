// realPathOf names the file the kernel would reach: each link is resolved
// before the `..` after it, up to the longest prefix that exists.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { joinAsWritten, realPathOf } from '../../src/files/real-path';

// A project with src/a.ts, src/sub/, and alias -> src/sub.
function tree(t: TestContext): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'oc-real-path-')));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'src', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.ts'), 'a\n');
  symlinkSync(join('src', 'sub'), join(dir, 'alias'));
  return dir;
}

test('a `..` after a link is the parent of the link\'s target, not of the folder holding the link', (t) => {
  const dir = tree(t);
  assert.equal(realPathOf('alias/../a.ts', dir), join(dir, 'src', 'a.ts'));
  assert.equal(realPathOf(`${dir}/alias/../a.ts`), join(dir, 'src', 'a.ts'));
});

test('a file not created yet behind `alias/..` is named in the link target\'s parent', (t) => {
  const dir = tree(t);
  assert.equal(realPathOf('alias/../new/deeper.ts', dir), join(dir, 'src', 'new', 'deeper.ts'));
  assert.equal(realPathOf('alias/../../b.ts', dir), join(dir, 'b.ts'));
});

test('a final link to nothing names its target, which a write would create', (t) => {
  const dir = tree(t);
  symlinkSync(join('src', 'later.ts'), join(dir, 'later-link'));
  assert.equal(realPathOf('later-link', dir), join(dir, 'src', 'later.ts'));
});

test('a link to nothing before more names, and a looping link, keep their own names', (t) => {
  const dir = tree(t);
  symlinkSync('missing-target', join(dir, 'dangling'));
  symlinkSync('loop', join(dir, 'loop'));
  assert.equal(realPathOf('dangling/y.ts', dir), join(dir, 'dangling', 'y.ts'));
  assert.equal(realPathOf('loop/z.md', dir), join(dir, 'loop', 'z.md'));
});

test('joinAsWritten keeps every `.` and `..` for the kernel to read', () => {
  assert.equal(joinAsWritten('/p', 'alias/../a.ts'), '/p/alias/../a.ts');
  assert.equal(joinAsWritten('/p/', './a.ts'), '/p/./a.ts');
  assert.equal(joinAsWritten('/p', '/abs/x'), '/abs/x');
});

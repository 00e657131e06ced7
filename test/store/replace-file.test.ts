import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { leftoverPidOf } from '../../src/local/leftovers';
import { createFileExclusive, fsyncDirectory, replaceFile, tempPathFor } from '../../src/files/replace-file';
import { NODE_FS } from '../../src/files/fs-port';
import { faultyFsByPath, tempFilesIn, tempProject } from './helpers';

const isTemp = (p: unknown) => typeof p === 'string' && p.endsWith('.tmp');

test('replaceFile writes a new file and leaves no temp file', (t) => {
  const dir = tempProject(t);
  const target = join(dir, 'state.json');
  replaceFile(NODE_FS, target, '{"a":1}');
  assert.equal(readFileSync(target, 'utf8'), '{"a":1}');
  replaceFile(NODE_FS, target, Buffer.from('{"a":2}'));
  assert.equal(readFileSync(target, 'utf8'), '{"a":2}');
  assert.deepEqual(tempFilesIn(dir), []);
});

test('temp names follow .<stem>.<pid>.<8 hex>.tmp and are recognised per pid', () => {
  const name = tempPathFor('/x/state.json').split('/').pop() as string;
  assert.match(name, new RegExp(`^\\.state\\.${process.pid}\\.[0-9a-f]{8}\\.tmp$`));
  assert.equal(leftoverPidOf(name), process.pid);
  assert.equal(leftoverPidOf('state.json'), undefined);
});

for (const [method, code] of [
  ['writeSync', 'ENOSPC'],
  ['writeSync', 'EACCES'],
  ['fsyncSync', 'ENOSPC'],
  ['fsyncSync', 'EIO'],
  ['renameSync', 'ENOSPC'],
  ['renameSync', 'EACCES'],
  ['openSync', 'EACCES'],
] as const) {
  test(`a ${code} on ${method} keeps the previous file intact and removes the temp file`, (t) => {
    const dir = tempProject(t);
    const target = join(dir, 'state.json');
    writeFileSync(target, 'previous');
    const port = faultyFsByPath([{ method, code, when: isTemp }]);
    assert.throws(() => replaceFile(port, target, 'next'), { code });
    assert.equal(readFileSync(target, 'utf8'), 'previous');
    assert.deepEqual(tempFilesIn(dir), []);
  });
}

test('a failing cleanup never replaces the first error', (t) => {
  const dir = tempProject(t);
  const target = join(dir, 'state.json');
  writeFileSync(target, 'previous');
  const port = faultyFsByPath([
    { method: 'fsyncSync', code: 'ENOSPC', when: isTemp },
    { method: 'closeSync', code: 'EIO', when: isTemp },
    { method: 'unlinkSync', code: 'EPERM', when: isTemp },
  ]);
  assert.throws(() => replaceFile(port, target, 'next'), { code: 'ENOSPC' });
  assert.equal(readFileSync(target, 'utf8'), 'previous');
});

test('a transient EPERM on rename (Windows sharing violation) is retried', (t) => {
  const dir = tempProject(t);
  const target = join(dir, 'state.json');
  const port = faultyFsByPath([{ method: 'renameSync', code: 'EPERM', times: 2 }]);
  replaceFile(port, target, 'next');
  assert.equal(readFileSync(target, 'utf8'), 'next');
  assert.equal(port.calls.filter((c) => c.method === 'renameSync').length, 3);
});

test('platforms that cannot fsync a directory do not fail the save', (t) => {
  const dir = tempProject(t);
  for (const fault of [
    { method: 'openSync', code: 'EISDIR', when: (p: unknown) => p === dir },
    { method: 'fsyncSync', code: 'EPERM', when: (p: unknown) => p === dir },
  ] as const) {
    const port = faultyFsByPath([fault]);
    replaceFile(port, join(dir, 'state.json'), 'x');
  }
  assert.equal(readFileSync(join(dir, 'state.json'), 'utf8'), 'x');
  const broken = faultyFsByPath([{ method: 'fsyncSync', code: 'EIO', when: (p) => p === dir }]);
  assert.throws(() => fsyncDirectory(broken, dir), { code: 'EIO' });
  const unopenable = faultyFsByPath([{ method: 'openSync', code: 'EMFILE', when: (p) => p === dir }]);
  assert.throws(() => fsyncDirectory(unopenable, dir), { code: 'EMFILE' });
});

test('createFileExclusive never clobbers an existing file', (t) => {
  const dir = tempProject(t);
  const target = join(dir, 'copy.json');
  createFileExclusive(NODE_FS, target, Buffer.from('first'));
  assert.throws(() => createFileExclusive(NODE_FS, target, Buffer.from('second')), { code: 'EEXIST' });
  assert.equal(readFileSync(target, 'utf8'), 'first');
  assert.deepEqual(tempFilesIn(dir), []);
});

test('createFileExclusive falls back to an exclusive create where hard links are unsupported', (t) => {
  const dir = tempProject(t);
  const target = join(dir, 'copy.json');
  const port = faultyFsByPath([{ method: 'linkSync', code: 'ENOTSUP' }]);
  createFileExclusive(port, target, Buffer.from('bytes'));
  assert.equal(readFileSync(target, 'utf8'), 'bytes');
  const failing = faultyFsByPath([
    { method: 'linkSync', code: 'ENOTSUP' },
    { method: 'writeSync', code: 'ENOSPC', when: (p) => p === join(dir, 'other.json') },
  ]);
  assert.throws(() => createFileExclusive(failing, join(dir, 'other.json'), Buffer.from('x')), { code: 'ENOSPC' });
  assert.deepEqual(tempFilesIn(dir), []);
  assert.throws(() => readFileSync(join(dir, 'other.json')), { code: 'ENOENT' });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeReusing, tryReadFileReusing } from '../../src/files/file-read';
import { NODE_FS } from '../../src/files/fs-port';
import { faultyFsByPath, tempProject } from './helpers';

test('tryReadFileReusing reads whole files of any size into a reused buffer, and absent files as undefined', (t) => {
  const dir = tempProject(t);
  const sizes = [0, 10, 70_000, 3_000_000, 100, 9_000_000];
  for (const [i, size] of sizes.entries()) {
    const path = join(dir, `f${i}`);
    writeFileSync(path, Buffer.from('é€x\n'.repeat(size / 7 + 1).slice(0, size), 'utf8'));
    const got = tryReadFileReusing(NODE_FS, path);
    assert.ok(got);
    assert.ok(got.equals(readFileSync(path)), `file of ${size} characters`);
  }
  assert.equal(tryReadFileReusing(NODE_FS, join(dir, 'absent')), undefined);
  const port = faultyFsByPath([{ method: 'openSync', code: 'EACCES' }]);
  assert.throws(() => tryReadFileReusing(port, join(dir, 'f1')), { code: 'EACCES' });
});

test('a file that grows between the size check and the read is still read to its end', (t) => {
  const dir = tempProject(t);
  const path = join(dir, 'growing');
  writeFileSync(path, 'a'.repeat(1_000));
  const port = {
    ...NODE_FS,
    fstatSync: (fd: number) => {
      const stat = NODE_FS.fstatSync(fd);
      writeFileSync(path, 'b'.repeat(5_000), { flag: 'a' });
      return stat;
    },
  };
  assert.equal(tryReadFileReusing(port, path)?.toString(), 'a'.repeat(1_000) + 'b'.repeat(5_000));
});

test('encodeReusing gives the same bytes as Buffer.from, lone surrogates included', () => {
  for (const text of ['', 'plain', 'ünïcödé ✓ 😀', 'lone \ud800 and \udc00 end', 'x'.repeat(200_000)]) {
    assert.ok(encodeReusing(text).equals(Buffer.from(text, 'utf8')), JSON.stringify(text.slice(0, 20)));
  }
});

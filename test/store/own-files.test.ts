// The checked opens every file under .opencomms/ goes through: no link is
// followed, only regular files of ours with one name are written, and what
// is created is private whatever the umask.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync, chownSync, linkSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { tryReadFile, tryReadFileReusing } from '../../src/files/file-read';
import { DIR_MODE, FILE_MODE, NODE_FS } from '../../src/files/fs-port';
import { checkOwnDir, ensureOwnDir, openOwnFile } from '../../src/files/own-files';
import { createFileExclusive, replaceFile } from '../../src/files/replace-file';
import { tempProject } from './helpers';

const IS_POSIX = process.platform !== 'win32';
const IS_ROOT = IS_POSIX && process.getuid?.() === 0;

function withUmask022(t: TestContext): void {
  const previous = process.umask(0o022);
  t.after(() => void process.umask(previous));
}

const refusedAs = (pattern: RegExp) => (err: Error & { code?: string }): boolean => {
  assert.equal(err.code, 'state_unwritable');
  assert.match(err.message, pattern);
  return true;
};

test('a rename into place replaces a link at the target and never writes through it', (t) => {
  const dir = tempProject(t);
  const outside = join(tempProject(t), 'victim');
  writeFileSync(outside, 'untouched');
  const target = join(dir, 'state.json');
  symlinkSync(outside, target);
  replaceFile(NODE_FS, target, '{"new":true}');
  assert.equal(lstatSync(target).isSymbolicLink(), false);
  assert.equal(readFileSync(target, 'utf8'), '{"new":true}');
  assert.equal(readFileSync(outside, 'utf8'), 'untouched');
});

test('a rename into place refuses a folder at the target and leaves it as it was', (t) => {
  const dir = tempProject(t);
  const target = join(dir, 'state.json');
  mkdirSync(target);
  writeFileSync(join(target, 'mine'), 'x');
  assert.throws(() => replaceFile(NODE_FS, target, '{}'), refusedAs(/state\.json is a folder .*move it elsewhere/));
  assert.equal(readFileSync(join(target, 'mine'), 'utf8'), 'x');
});

test('a rename into place refuses a folder that is a link, writing nothing through it', (t) => {
  const dir = tempProject(t);
  const outside = tempProject(t);
  symlinkSync(outside, join(dir, 'pins'));
  assert.throws(() => replaceFile(NODE_FS, join(dir, 'pins', 'a.json'), '{}'), refusedAs(/pins is a symbolic link/));
  assert.equal(statSync(outside).nlink, 2, 'nothing was made in the outside folder');
});

test('files and folders made under .opencomms are 0600 and 0700 whatever the umask, temp files included', { skip: !IS_POSIX }, (t) => {
  withUmask022(t);
  const dir = join(tempProject(t), '.opencomms');
  assert.equal(ensureOwnDir(NODE_FS, join(dir, 'history')), dir);
  assert.equal(statSync(dir).mode & 0o777, DIR_MODE);
  assert.equal(statSync(join(dir, 'history')).mode & 0o777, DIR_MODE);
  replaceFile(NODE_FS, join(dir, 'state.json'), '{}');
  assert.equal(statSync(join(dir, 'state.json')).mode & 0o777, FILE_MODE);
  createFileExclusive(NODE_FS, join(dir, 'state.corrupt-1.json'), Buffer.from('x'));
  assert.equal(statSync(join(dir, 'state.corrupt-1.json')).mode & 0o777, FILE_MODE);
  const fd = openOwnFile(NODE_FS, join(dir, 'history', 'chn_a.jsonl'), 'append');
  NODE_FS.closeSync(fd);
  assert.equal(statSync(join(dir, 'history', 'chn_a.jsonl')).mode & 0o777, FILE_MODE);
  replaceFile(NODE_FS, join(dir, 'opencomms.js'), 'x', DIR_MODE);
  assert.equal(statSync(join(dir, 'opencomms.js')).mode & 0o777, 0o700);
});

test('an append narrows a file other users could read', { skip: !IS_POSIX }, (t) => {
  const path = join(tempProject(t), 'log.jsonl');
  writeFileSync(path, 'a\n');
  chmodSync(path, 0o644);
  NODE_FS.closeSync(openOwnFile(NODE_FS, path, 'append'));
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test('reads refuse a link, a folder and a named pipe (without hanging on the pipe), and read a regular file', { skip: !IS_POSIX }, (t) => {
  const dir = tempProject(t);
  writeFileSync(join(dir, 'plain'), 'ok');
  symlinkSync(join(dir, 'plain'), join(dir, 'link'));
  mkdirSync(join(dir, 'folder'));
  execFileSync('mkfifo', [join(dir, 'pipe')]);
  assert.equal(tryReadFile(NODE_FS, join(dir, 'plain'))?.toString(), 'ok');
  assert.equal(tryReadFile(NODE_FS, join(dir, 'absent')), undefined);
  for (const read of [tryReadFile, tryReadFileReusing]) {
    assert.throws(() => read(NODE_FS, join(dir, 'link')), refusedAs(/link is a symbolic link.*remove the link/));
    assert.throws(() => read(NODE_FS, join(dir, 'folder')), refusedAs(/folder is a folder where OpenComms keeps a file/));
    assert.throws(() => read(NODE_FS, join(dir, 'pipe')), refusedAs(/pipe is a named pipe/));
  }
  assert.throws(() => openOwnFile(NODE_FS, join(dir, 'link'), 'append'), refusedAs(/symbolic link/));
  assert.equal(readlinkSync(join(dir, 'link')), join(dir, 'plain'));
});

test('an append refuses a file with a second name, which would change a file elsewhere', (t) => {
  const dir = tempProject(t);
  const elsewhere = join(dir, 'elsewhere');
  writeFileSync(elsewhere, 'theirs');
  linkSync(elsewhere, join(dir, 'log.jsonl'));
  assert.throws(() => openOwnFile(NODE_FS, join(dir, 'log.jsonl'), 'append'), refusedAs(/has 2 names \(hard links\)/));
  assert.equal(readFileSync(elsewhere, 'utf8'), 'theirs');
});

test('a file or folder of another user is refused', { skip: !IS_ROOT && 'needs root to give a file away' }, (t) => {
  const dir = tempProject(t);
  const path = join(dir, 'state.json');
  writeFileSync(path, '{}');
  chownSync(path, 12345, 12345);
  assert.throws(() => tryReadFile(NODE_FS, path), refusedAs(/belongs to another user \(uid 12345/));
  mkdirSync(join(dir, 'pins'));
  chownSync(join(dir, 'pins'), 12345, 12345);
  assert.throws(() => checkOwnDir(NODE_FS, join(dir, 'pins'), false), refusedAs(/pins belongs to another user/));
});

test('a folder check refuses a file or a link where a folder belongs, and is false when nothing is there', (t) => {
  const dir = tempProject(t);
  writeFileSync(join(dir, 'history'), 'x');
  symlinkSync(tempProject(t), join(dir, 'pins'));
  assert.throws(() => checkOwnDir(NODE_FS, join(dir, 'history'), true), refusedAs(/history is a file where OpenComms keeps a folder/));
  assert.throws(() => ensureOwnDir(NODE_FS, join(dir, 'pins')), refusedAs(/pins is a symbolic link where OpenComms keeps a folder/));
  assert.equal(checkOwnDir(NODE_FS, join(dir, 'archives'), true), false);
});

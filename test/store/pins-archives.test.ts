import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionArchive } from '../../src/engine/index';
import { isValidMemberId, listPins, readPin, removePin, writePin } from '../../src/local/pins';
import { deleteArchive, findArchiveByName, listArchives, readArchive, writeArchive } from '../../src/store/file/archives';
import { faultyFsByPath, tempFilesIn, tempProject } from './helpers';

test('member ids are 1-64 safe characters starting with a letter or digit', () => {
  for (const ok of ['a', 'A9', 'sess_0123', 'x'.repeat(64), '9-a_b']) assert.equal(isValidMemberId(ok), true, ok);
  for (const bad of ['', '_a', '-a', 'x'.repeat(65), 'a/b', '../a', 'a.b', '<set by: opencomms install-member>', 7]) {
    assert.equal(isValidMemberId(bad), false, String(bad));
  }
});

test('writePin creates .opencomms/pins/ and writes the pin atomically', (t) => {
  const dir = tempProject(t);
  const pin = writePin(dir, { member_id: 'alice', host: 'claude-code' }, { now: () => 5 });
  assert.deepEqual(pin, { member_id: 'alice', host: 'claude-code', saved_at: 5 });
  assert.deepEqual(JSON.parse(readFileSync(join(dir, '.opencomms', 'pins', 'alice.json'), 'utf8')), pin);
  assert.deepEqual(readPin(dir, 'alice'), pin);
  assert.deepEqual(tempFilesIn(join(dir, '.opencomms', 'pins')), []);
  assert.throws(() => writePin(dir, { member_id: '../x', host: 'h' }), /invalid member id/);
});

test('listPins filters by host and ignores tampered or broken pins', (t) => {
  const dir = tempProject(t);
  writePin(dir, { member_id: 'bob', host: 'codex' });
  writePin(dir, { member_id: 'alice', host: 'claude-code' });
  const pins = join(dir, '.opencomms', 'pins');
  writeFileSync(join(pins, 'mallory.json'), JSON.stringify({ member_id: 'alice', host: 'claude-code', saved_at: 1 }));
  writeFileSync(join(pins, 'broken.json'), '{');
  writeFileSync(join(pins, 'nohost.json'), JSON.stringify({ member_id: 'nohost' }));
  writeFileSync(join(pins, 'notes.txt'), 'x');
  assert.deepEqual(listPins(dir).map((p) => p.member_id), ['alice', 'bob']);
  assert.deepEqual(listPins(dir, 'codex').map((p) => p.member_id), ['bob']);
  assert.equal(readPin(dir, 'mallory'), undefined);
  assert.equal(readPin(dir, '../alice'), undefined);
  assert.deepEqual(listPins(tempProject(t)), []);
});

test('removePin deletes a pin and reports whether one existed', (t) => {
  const dir = tempProject(t);
  writePin(dir, { member_id: 'alice', host: 'h' });
  assert.equal(removePin(dir, 'alice'), true);
  assert.equal(removePin(dir, 'alice'), false);
  assert.equal(removePin(dir, '../x'), false);
});

test('a pin that cannot be written is a state_unwritable fault', (t) => {
  const dir = tempProject(t);
  const port = faultyFsByPath([{ method: 'renameSync', code: 'EROFS' }]);
  assert.throws(() => writePin(dir, { member_id: 'alice', host: 'h' }, { fs: port }), { code: 'state_unwritable' });
  assert.equal(readPin(dir, 'alice'), undefined);
});

function archive(id: string, name: string, savedAt: number): SessionArchive {
  return {
    schema: 1, channel_id: id, name, parent_channel_id: null, description: null, summary: null, members: [],
    budgets: { max_runtime_ms: null, max_delivered_messages: null }, created_at: 1, saved_at: savedAt,
    saved_by: null, saved_by_role: null, message_count: 0, final_state_note: null, messages: [],
  };
}

test('archives are written atomically and read back validated', (t) => {
  const dir = tempProject(t);
  const a = archive('chn_aaa', 'review', 10);
  writeArchive(dir, a);
  assert.deepEqual(readArchive(dir, 'chn_aaa'), a);
  assert.deepEqual(tempFilesIn(join(dir, '.opencomms', 'archives')), []);
  assert.equal(readArchive(dir, 'chn_missing'), undefined);
  assert.equal(readArchive(dir, '../../etc/passwd'), undefined);
  assert.throws(() => writeArchive(dir, archive('chn_../x', 'n', 1)), /invalid channel id/);
  assert.throws(() => writeArchive(dir, { ...a, schema: 2 } as unknown as SessionArchive), /not a valid archive/);
});

test('listArchives is newest first and skips dotfiles, foreign and broken files', (t) => {
  const dir = tempProject(t);
  writeArchive(dir, archive('chn_old', 'review', 10));
  writeArchive(dir, archive('chn_new', 'review', 30));
  writeArchive(dir, archive('chn_mid', 'other', 20));
  const folder = join(dir, '.opencomms', 'archives');
  writeFileSync(join(folder, '.chn_hidden.json'), JSON.stringify(archive('chn_hidden', 'review', 99)));
  writeFileSync(join(folder, 'chn_broken.json'), '{"schema":1');
  writeFileSync(join(folder, 'chn_shape.json'), JSON.stringify({ ...archive('chn_shape', 'x', 5), members: {} }));
  writeFileSync(join(folder, 'chn_alias.json'), JSON.stringify(archive('chn_other', 'x', 6)));
  writeFileSync(join(folder, 'readme.txt'), 'x');
  assert.deepEqual(listArchives(dir).map((a) => a.channel_id), ['chn_new', 'chn_mid', 'chn_old']);
  assert.equal(findArchiveByName(dir, 'review')?.channel_id, 'chn_new');
  assert.equal(findArchiveByName(dir, 'absent'), undefined);
  assert.deepEqual(listArchives(tempProject(t)), []);
});

test('an archive name that is a folder is refused naming it, not skipped, since nothing but our own files belongs there', (t) => {
  const dir = tempProject(t);
  writeArchive(dir, archive('chn_old', 'review', 10));
  const entry = join(dir, '.opencomms', 'archives', 'chn_dir.json');
  mkdirSync(entry);
  assert.throws(() => listArchives(dir), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'state_unwritable');
    assert.ok(err.message.startsWith(`${entry} is a folder`), err.message);
    return true;
  });
});

test('an archives folder that cannot be listed is a state_unwritable fault naming it; an absent one lists nothing', (t) => {
  const dir = tempProject(t);
  mkdirSync(join(dir, '.opencomms'), { recursive: true });
  symlinkSync('archives', join(dir, '.opencomms', 'archives')); // a link (to itself): never followed
  assert.throws(() => listArchives(dir), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'state_unwritable');
    assert.match(err.message, /archives is a symbolic link/);
    return true;
  });
  assert.throws(() => findArchiveByName(dir, 'review'), { code: 'state_unwritable' });
  // The folder must exist for its listing to fail: an absent one is simply empty.
  const other = tempProject(t);
  mkdirSync(join(other, '.opencomms', 'archives'), { recursive: true });
  const port = faultyFsByPath([{ method: 'readdirSync', code: 'EACCES' }]);
  assert.throws(() => listArchives(other, port), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'state_unwritable');
    assert.match(err.message, /cannot list the archives in .*archives \(EACCES\)/);
    return true;
  });
});

test('deleteArchive removes one archive and refuses bad ids', (t) => {
  const dir = tempProject(t);
  writeArchive(dir, archive('chn_aaa', 'review', 10));
  assert.equal(deleteArchive(dir, 'chn_aaa'), true);
  assert.equal(existsSync(join(dir, '.opencomms', 'archives', 'chn_aaa.json')), false);
  assert.equal(deleteArchive(dir, 'chn_aaa'), false);
  assert.equal(deleteArchive(dir, '../x'), false);
  const port = faultyFsByPath([{ method: 'unlinkSync', code: 'EACCES' }]);
  writeArchive(dir, archive('chn_bbb', 'r', 1));
  assert.throws(() => deleteArchive(dir, 'chn_bbb', port), { code: 'state_unwritable' });
  const failing = faultyFsByPath([{ method: 'writeSync', code: 'ENOSPC' }]);
  assert.throws(() => writeArchive(dir, archive('chn_ccc', 'r', 1), failing), { code: 'state_unwritable' });
  assert.deepEqual(tempFilesIn(join(dir, '.opencomms', 'archives')), []);
});

test('a person is never pinned: writePin refuses the person- prefix, and a hand-made person pin is never read', (t) => {
  const dir = tempProject(t);
  assert.throws(() => writePin(dir, { member_id: 'person-ada', host: 'mcp' }), /reserved for a person/);
  assert.throws(() => writePin(dir, { member_id: 'Person-Ada', host: 'mcp' }), /reserved for a person/);
  writePin(dir, { member_id: 'alice', host: 'mcp' });
  writeFileSync(join(dir, '.opencomms', 'pins', 'person-ada.json'), JSON.stringify({ member_id: 'person-ada', host: 'mcp', saved_at: 1 }), { mode: 0o600 });
  assert.deepEqual(listPins(dir, 'mcp').map((p) => p.member_id), ['alice']);
  assert.equal(readPin(dir, 'person-ada'), undefined);
});

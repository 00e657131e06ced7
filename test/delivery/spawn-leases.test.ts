import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  activeSpawnLease, emptyState, extendSpawnLease, parseState, recordMemberError, releaseSpawnLease, serializeState, takeSpawnLease,
} from '../../src/engine/index';
import { argvCost, fittingPrefix, hostSessionIdProblem, resolveHostBinary, splitTemplate } from '../../src/delivery/spawn-command';
import { describeFailure } from '../../src/delivery/spawn-process';

const alive = () => true;
const dead = () => false;
const lease = (token: string, until = 2_000) => ({ pid: 10, host: 'h', token, until });

test('a spawn lease is exclusive while its holder lives and its time runs, and free otherwise', () => {
  const state = emptyState();
  assert.equal(takeSpawnLease(state, 'bob', lease('a'), 1_000, alive), true);
  assert.equal(takeSpawnLease(state, 'bob', lease('b'), 1_000, alive), false);
  assert.equal(state.spawn_leases!.bob!.token, 'a');
  assert.equal(activeSpawnLease(state, 'bob', 2_001, alive), undefined, 'expired');
  assert.equal(activeSpawnLease(state, 'bob', 1_000, dead), undefined, 'holder dead');
  assert.equal(takeSpawnLease(state, 'bob', lease('c', 9_000), 1_000, dead), true);
  assert.equal(releaseSpawnLease(state, 'bob', 'a'), false, 'a lease taken over is not released by its old holder');
  assert.equal(extendSpawnLease(state, 'bob', 'c', 12_000), true);
  assert.equal(state.spawn_leases!.bob!.until, 12_000);
  assert.equal(releaseSpawnLease(state, 'bob', 'c'), true);
  assert.equal(state.spawn_leases, undefined, 'no empty record is left in the file');
});

test('spawn_leases survive a save and load; malformed entries are dropped and a non-object is refused', () => {
  const state = emptyState();
  takeSpawnLease(state, 'bob', lease('a'), 1_000, alive);
  const loaded = parseState(serializeState(state), 1_000);
  assert.ok(loaded.ok);
  assert.deepEqual(loaded.state.spawn_leases, { bob: lease('a') });
  const raw = JSON.parse(serializeState(state));
  raw.spawn_leases.carol = { pid: 'x', host: 'h', token: 't', until: 1 };
  const cleaned = parseState(JSON.stringify(raw), 1_000);
  assert.ok(cleaned.ok);
  assert.deepEqual(Object.keys(cleaned.state.spawn_leases!), ['bob']);
  assert.ok(cleaned.notes.some((n) => n.includes('spawn_leases["carol"]')));
  raw.spawn_leases = [];
  assert.equal(parseState(JSON.stringify(raw), 1_000).ok, false);
  assert.equal(parseState(serializeState(emptyState()), 1).ok && 'spawn_leases' in JSON.parse(serializeState(emptyState())), false);
});

test('a member error is recorded once while it repeats', () => {
  const state = emptyState();
  assert.equal(recordMemberError(state, 'bob', 1, 'too big'), true);
  assert.equal(recordMemberError(state, 'bob', 2, 'too big'), false);
  assert.equal(recordMemberError(state, 'carol', 3, 'too big'), true);
  assert.equal(recordMemberError(state, 'bob', 4, 'other'), true);
  assert.deepEqual(state.errors.map((e) => e.member_id), ['bob', 'carol', 'bob']);
});

test('host session ids: blank, option-like, control characters and over-long ones are refused', () => {
  assert.equal(hostSessionIdProblem('0b9c1e2a-7f3d-4c55-9a0e-2f1b3c4d5e6f'), undefined);
  for (const bad of [null, '', '  ', '-x', '--resume', 'a\rb', 'a\nb', 'a\u0000b', 'x'.repeat(257)]) {
    assert.notEqual(hostSessionIdProblem(bad), undefined, JSON.stringify(bad));
  }
});

test('override templates split on whitespace with double-quoted segments kept whole, nothing else', () => {
  assert.deepEqual(splitTemplate('node  /a/b.cjs --x'), ['node', '/a/b.cjs', '--x']);
  assert.deepEqual(splitTemplate('"C:\\Program Files\\claude.exe" -v'), ['C:\\Program Files\\claude.exe', '-v']);
  assert.deepEqual(splitTemplate('a $(rm -rf) `x` ; b'), ['a', '$(rm', '-rf)', '`x`', ';', 'b']);
  assert.equal(splitTemplate('"unterminated'), undefined);
  assert.equal(splitTemplate('   '), undefined);
  assert.deepEqual(resolveHostBinary('claude-code', {}), { file: 'claude', prefix: [] });
  assert.deepEqual(resolveHostBinary('codex', { OPENCOMMS_CODEX_BIN: __filename }), { file: __filename, prefix: [] });
  assert.equal(resolveHostBinary('codex', { OPENCOMMS_CODEX_BIN: '"oops' }), undefined);
});

test('the argv budget counts bytes plus a NUL on POSIX and a doubled UTF-16 length on Windows', () => {
  assert.equal(argvCost('ab', ['€'], 'linux'), 64 + 3 + 4);
  assert.equal(argvCost('ab', ['€'], 'win32'), 64 + 7 + 5);
  assert.equal(fittingPrefix(['aaaa', 'bbbb'], '--', 0, 5, 'linux'), 1);
  assert.equal(fittingPrefix(['aaaa', 'bbbb'], '--', 0, 11, 'linux'), 2);
  assert.equal(fittingPrefix(['aaaa'], '--', 10, 12, 'linux'), 0);
});

test('failures are described by exit code, signal, timeout or start error only', () => {
  assert.equal(describeFailure({ code: 2, signal: null, timedOut: false }), 'host CLI failed (exit code 2)');
  assert.equal(describeFailure({ code: null, signal: 'SIGKILL', timedOut: false }), 'host CLI failed (signal SIGKILL)');
  assert.equal(describeFailure({ code: null, signal: 'SIGTERM', timedOut: true }), 'host CLI failed (timed out)');
  assert.match(describeFailure({ code: null, signal: null, timedOut: false, errorCode: 'ENOENT' }), /could not start \(ENOENT\).*OPENCOMMS_CLAUDE_BIN/);
});

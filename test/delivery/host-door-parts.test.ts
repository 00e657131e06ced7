// The pieces of the host doors: how an inbox answer is read, the turn
// records the hooks write, and which door a server has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inboxAddressOf, problemInAnswer, ringInbox } from '../../src/delivery/inbox-door';
import { codexBinOf, ringCodexQueue } from '../../src/delivery/codex-door';
import { hostDoorFor } from '../../src/delivery/host-door';
import { readTurnRecord, writeTurnRecord } from '../../src/local/turn-records';

test('an inbox answer is a problem only when it says so', () => {
  assert.equal(problemInAnswer('{"type":"auth_ok"}'), undefined);
  assert.equal(problemInAnswer('{"type":"ack","status":"queued"}'), undefined);
  assert.equal(problemInAnswer(''), undefined);
  assert.equal(problemInAnswer('[1,2]'), undefined);
  assert.equal(problemInAnswer('ok'), undefined);
  assert.equal(problemInAnswer('{"type":"error","error":"bad token"}'), 'bad token');
  assert.equal(problemInAnswer('{"ok":false,"reason":"refused"}'), 'refused');
  assert.equal(problemInAnswer('{"status":"held"}'), '{"status":"held"}');
  assert.equal(problemInAnswer('message refused by policy'), 'message refused by policy');
});

test('the inbox address needs both variables; the door follows the host', () => {
  assert.equal(inboxAddressOf({ CLAUDE_CODE_MESSAGING_SOCKET: '/s' }), undefined);
  assert.deepEqual(inboxAddressOf({ CLAUDE_CODE_MESSAGING_SOCKET: ' /s ', CLAUDE_CODE_MESSAGING_TOKEN: 't' }), { socket: '/s', token: 't' });
  assert.equal(hostDoorFor('claude-code', {}), undefined);
  assert.equal(hostDoorFor('claude-code', { CLAUDE_CODE_MESSAGING_SOCKET: '/s', CLAUDE_CODE_MESSAGING_TOKEN: 't' }), 'inbox');
  assert.equal(hostDoorFor('codex', {}), 'codex_queue');
  assert.equal(hostDoorFor('gemini-cli', { CLAUDE_CODE_MESSAGING_SOCKET: '/s', CLAUDE_CODE_MESSAGING_TOKEN: 't' }), undefined);
  assert.equal(codexBinOf({}), 'codex');
  assert.equal(codexBinOf({ OPENCOMMS_CODEX_BIN: ' /x/codex ' }), '/x/codex');
});

test('a missing codex binary and an unreachable socket are problems, never throws', async () => {
  const missing = await ringCodexQueue('/nonexistent/codex-bin', 't', 'n', {});
  assert.equal(missing.ok, false);
  assert.match((missing as { problem: string }).problem, /was not found/);
  const socket = await ringInbox({ socket: '/nonexistent-dir/x.sock', token: 't' }, 'n');
  assert.deepEqual(socket, { ok: false, problem: 'the inbox socket refused the connection' });
});

test('turn records: written and read by session id, any id a safe name; a linked folder is refused', (t) => {
  const project = mkdtempSync(join(tmpdir(), 'oc-turns-'));
  t.after(() => rmSync(project, { recursive: true, force: true }));
  assert.equal(readTurnRecord(project, 's1'), undefined);
  writeTurnRecord(project, '../../weird id/', { phase: 'busy', at: 5, event: 'UserPromptSubmit' });
  assert.deepEqual(readTurnRecord(project, '../../weird id/'), { phase: 'busy', at: 5, event: 'UserPromptSubmit' });
  writeTurnRecord(project, '../../weird id/', { phase: 'idle', at: 6, event: 'Stop' });
  assert.equal(readTurnRecord(project, '../../weird id/')!.phase, 'idle');
  writeTurnRecord(project, '', { phase: 'idle', at: 6, event: 'Stop' });
  assert.equal(readTurnRecord(project, ''), undefined);
  assert.equal(readTurnRecord(project, 'x'.repeat(101)), undefined);
  writeTurnRecord(project, 'ok-ID_1', { phase: 'busy', at: 7, event: 'PostToolUse' });
  assert.equal(readTurnRecord(project, 'ok-ID_1')!.event, 'PostToolUse');

  const other = mkdtempSync(join(tmpdir(), 'oc-turns-'));
  t.after(() => rmSync(other, { recursive: true, force: true }));
  mkdirSync(join(other, '.opencomms'));
  const elsewhere = mkdtempSync(join(tmpdir(), 'oc-turns-elsewhere-'));
  t.after(() => rmSync(elsewhere, { recursive: true, force: true }));
  symlinkSync(elsewhere, join(other, '.opencomms', 'turns'));
  assert.throws(() => writeTurnRecord(other, 's', { phase: 'idle', at: 1, event: 'Stop' }), /symbolic link/);
});

test('a turn record that does not parse, or names no known phase, reads as none', (t) => {
  const project = mkdtempSync(join(tmpdir(), 'oc-turns-'));
  t.after(() => rmSync(project, { recursive: true, force: true }));
  writeTurnRecord(project, 's', { phase: 'idle', at: 1, event: 'Stop' });
  const dir = join(project, '.opencomms', 'turns');
  const { readdirSync } = require('node:fs') as typeof import('node:fs');
  const file = join(dir, readdirSync(dir)[0]!);
  writeFileSync(file, '{"phase":"napping","at":1}');
  assert.equal(readTurnRecord(project, 's'), undefined);
  writeFileSync(file, '{"phase":"idle","at":"soon"}');
  assert.equal(readTurnRecord(project, 's'), undefined);
  writeFileSync(file, 'not json');
  assert.equal(readTurnRecord(project, 's'), undefined);
  writeFileSync(file, '{"phase":"ended","at":3}');
  assert.deepEqual(readTurnRecord(project, 's'), { phase: 'ended', at: 3, event: '' });
});

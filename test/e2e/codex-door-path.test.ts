// Codex's door keeps its step in a message's path (issue 35, item 14): a woken
// Codex turn may pull before `codex queue` has exited, so the ring must be on
// record from the moment the command starts. The stub `codex` here holds its
// exit until the test lets it go, over a Unix socket the test listens on.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { startServer, tempProject, type Json } from '../helpers/server';
import { until } from '../helpers/wait';
import { create, member, memberEnv, ok } from './tools-support';
import { hookEvent } from './door-support';

const THREAD = 'thr-held';

/** A stub `codex` that connects to the test's socket, and exits only once the test closes that connection. */
async function heldCodex(t: TestContext): Promise<{ bin: string; running: () => Promise<Socket> }> {
  const dir = mkdtempSync(joinPath(tmpdir(), 'oc-cdx-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const socketPath = joinPath(dir, 's.sock');
  let resolveRun: (socket: Socket) => void = () => undefined;
  const run = new Promise<Socket>((resolve) => { resolveRun = resolve; });
  const server = createServer((socket) => resolveRun(socket));
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const bin = joinPath(dir, 'codex');
  writeFileSync(bin, [
    `#!${process.execPath}`,
    `const socket = require('node:net').connect(${JSON.stringify(socketPath)});`,
    'socket.on(\'close\', () => process.exit(0));',
    'socket.on(\'error\', () => process.exit(0));',
    'socket.resume();',
  ].join('\n'));
  chmodSync(bin, 0o755);
  return { bin, running: () => run };
}

test('a Codex turn that pulls before codex queue has exited: the history path still says rung via codex_queue', async (t) => {
  const project = tempProject(t);
  const codex = await heldCodex(t);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'review', 'writer');
  const reviewer = startServer(t, { project, args: ['--project', project, '--host', 'codex'], env: { ...memberEnv(undefined), OPENCOMMS_CODEX_BIN: codex.bin } });
  await reviewer.initialize();
  const call = async (name: string, args: Json): Promise<Json> => {
    const reply = await reviewer.request('tools/call', { name, arguments: args, _meta: { threadId: THREAD } });
    assert.equal(reply.error, undefined, JSON.stringify(reply.error));
    return reply.result.structuredContent;
  };
  assert.equal((await call('opencomms_join', { channel: 'review', role: 'reviewer', role_prompt: 'You review.' })).ok, true);
  await hookEvent(project, { hook_event_name: 'Stop', session_id: THREAD, turn_id: 'turn-1' });

  const sent = await ok(writer, 'opencomms_send', { channel: 'review', content: 'please look' });
  const queue = await codex.running();
  // The woken turn pulls while `codex queue` still runs.
  const pulled = await call('opencomms_pull', {});
  assert.deepEqual(pulled.data.message_ids, sent.data.message_ids);
  queue.end();
  const id = sent.data.message_ids[0];
  const steps = await until('the pull committed', async () => {
    const history = await ok(writer, 'opencomms_history', { channel: 'review' });
    const path: Json[] = history.data.messages.find((m: Json) => m.message_id === id).path;
    return path.some((s) => s.step === 'delivered') ? path : undefined;
  });
  assert.deepEqual(steps.map((s: Json) => [s.step, s.via]), [['queued', undefined], ['rung', 'codex_queue'], ['delivered', 'codex_queue']]);
});

// The protocol fuzzer, short form (`npm run fuzz` runs the long one): a fixed
// seed, a few thousand frames of every kind, and the server must answer each
// request exactly once, in order, without exiting or hanging.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DIST, tempProject } from '../helpers/server';
import { expectedReply, runFuzz } from '../helpers/fuzz';

test('the fuzz oracle expects what PROTOCOL.md 1.2 says for a few hand-made lines', () => {
  const cases: [string, ReturnType<typeof expectedReply>][] = [
    ['{"jsonrpc":"2.0","id":1,"method":"ping"}', { id: '1' }],
    ['{"jsonrpc":"2.0","id":"a","method":"ping"}\r', { id: '"a"' }],
    ['{"jsonrpc":"2.0","method":"ping"}', null],
    ['   ', null],
    ['{"jsonrpc":"2.0","id":1,"result":{}}', null],
    ['{"jsonrpc":"1.0","id":1,"method":"ping"}', { id: '1' }],
    ['{"jsonrpc":"2.0","id":null,"method":"ping"}', 'no-id'],
    ['{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', 'no-id'],
    ['{"jsonrpc":"2.0","id":1,"method":"ping","params":3}', { id: '1' }],
    ['{"jsonrpc":"2.0","method":""}', 'no-id'],
    ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 'no-id'],
    ['{"jsonrpc":"2.0","id":1,', 'no-id'],
  ];
  for (const [line, want] of cases) assert.deepEqual(expectedReply(Buffer.from(line)), want, line);
  assert.equal(expectedReply(Buffer.alloc(1_048_577, 0x61)), 'no-id');
});

test('a few thousand fuzzed frames (fixed seed): every request answered once and in order, no crash, no hang', async (t) => {
  const report = await runFuzz({ script: DIST, project: tempProject(t), frames: 3_000, seed: 0x0c0ffee, timeoutMs: 30_000 });
  assert.equal(report.exitCode, 0);
  assert.ok(report.requests > 1_000, `only ${report.requests} requests were generated`);
  assert.ok(report.idlessReplies > 100, `only ${report.idlessReplies} broken lines were generated`);
  for (const code of ['-32700', '-32600', '-32601', '-32602', '-32022']) {
    assert.ok((report.errorCodes[code] ?? 0) > 0, `no ${code} among ${JSON.stringify(report.errorCodes)}`);
  }
  assert.equal(report.errorCodes['-32603'] ?? 0, 0, 'no request ended in an internal error');
});

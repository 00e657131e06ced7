// A reply the transport cannot turn into JSON is replaced by a small error
// for the same request; the server neither crashes nor loses its place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { streamInput } from '../../src/transport/input';
import { serveStdio } from '../../src/transport/stdio';
import type { MethodTable } from '../../src/jsonrpc/dispatcher';

/** An object nested `depth` levels deep, built without recursion. */
function deepObject(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

/** An object that holds itself: no Node turns it into JSON. */
function circular(): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  value.self = value;
  return value;
}

// Whether JSON.stringify in this Node manages a million levels: Node 20's
// recursion overflows the stack, Node 26's does not.
const DEPTH = 1_000_000;
const canStringifyDeep = ((): boolean => {
  try {
    JSON.stringify(deepObject(DEPTH));
    return true;
  } catch {
    return false;
  }
})();

const TABLE: MethodTable = {
  requestHandler(method) {
    if (method === 'bigint') return () => ({ n: 10n });
    if (method === 'circular') return () => circular();
    if (method === 'deep') return () => deepObject(DEPTH);
    if (method === 'ping') return () => ({});
    return undefined;
  },
};

function run(lines: string[]): Promise<{ replies: Record<string, any>[]; logs: string[] }> {
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  let text = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => { text += chunk; });
  return new Promise((resolve) => {
    serveStdio({
      input: streamInput(input),
      output,
      table: TABLE,
      log: (line) => logs.push(line),
      onClosed: () => resolve({ replies: text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)), logs }),
    });
    input.end(lines.map((l) => `${l}\n`).join(''));
  });
}

test('a reply that cannot be serialised becomes a -32603 error for its id and later requests are still answered', async () => {
  const { replies, logs } = await run([
    '{"jsonrpc":"2.0","id":1,"method":"bigint"}',
    '{"jsonrpc":"2.0","id":2,"method":"circular"}',
    '{"jsonrpc":"2.0","id":3,"method":"ping"}',
  ]);
  assert.deepEqual(replies.map((r) => r.id), [1, 2, 3]);
  assert.equal(replies[0].error.code, -32603);
  assert.equal(replies[1].error.code, -32603);
  assert.deepEqual(replies[2].result, {});
  assert.equal(logs.filter((l) => l.includes('could not be serialised')).length, 2, logs.join('\n'));
});

test('a million-deep reply is sent whole where this Node can serialise it, and is a -32603 error where it cannot', async () => {
  const { replies, logs } = await run([
    '{"jsonrpc":"2.0","id":1,"method":"deep"}',
    '{"jsonrpc":"2.0","id":2,"method":"ping"}',
  ]);
  assert.deepEqual(replies.map((r) => r.id), [1, 2]);
  if (canStringifyDeep) {
    assert.equal(replies[0].error, undefined);
    let depth = 0;
    for (let value = replies[0].result; value.a !== undefined; value = value.a) depth += 1;
    assert.equal(depth, DEPTH);
    assert.equal(logs.filter((l) => l.includes('could not be serialised')).length, 0, logs.join('\n'));
  } else {
    assert.equal(replies[0].error.code, -32603);
    assert.equal(logs.filter((l) => l.includes('could not be serialised')).length, 1, logs.join('\n'));
  }
  assert.deepEqual(replies[1].result, {});
});

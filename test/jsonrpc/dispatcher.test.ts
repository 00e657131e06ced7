// The dispatcher's after-reply contract: work a handler attaches to its reply
// learns whether that reply was written, and the dispatcher is idle only once
// that work is done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Dispatcher, type Handler, type MethodTable, type Outgoing, type ReplyFate } from '../../src/jsonrpc/dispatcher';

interface Written {
  message: Outgoing;
  done?: (err?: Error | null) => void;
}

/** A dispatcher over one method, `work`, whose handler attaches an action recording each fate. */
function harness(handler?: Handler) {
  const fates: ReplyFate[] = [];
  const written: Written[] = [];
  const logs: string[] = [];
  const work: Handler = handler ?? ((_params, request) => {
    request.afterReply((fate) => {
      fates.push(fate);
    });
    return { ok: true };
  });
  const table: MethodTable = { requestHandler: (method) => (method === 'work' ? work : undefined) };
  const dispatcher = new Dispatcher(table, (message, done) => written.push({ message, done }), (line) => logs.push(line));
  return { dispatcher, fates, written, logs };
}

const request = (id: number | string, method = 'work'): string => JSON.stringify({ jsonrpc: '2.0', id, method });
const cancel = (id: number | string): string => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });

/** Lets queued handlers and their settlements run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

test('after-reply work hears "sent" only once the write of its reply reported success', async () => {
  const { dispatcher, fates, written } = harness();
  dispatcher.handleLine(request(1));
  await settle();
  assert.equal(written.length, 1);
  assert.deepEqual(fates, [], 'nothing is decided while the write is on its way');
  written[0]!.done!(null);
  await settle();
  assert.deepEqual(fates, ['sent']);
});

test('a reply whose write fails gives its work "not_sent"', async () => {
  const { dispatcher, fates, written } = harness();
  dispatcher.handleLine(request(1));
  await settle();
  written[0]!.done!(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
  await settle();
  assert.deepEqual(fates, ['not_sent']);
});

test('a cancelled request writes nothing and its work hears "not_sent"', async () => {
  const { dispatcher, fates, written } = harness();
  dispatcher.handleLine(request(1));
  dispatcher.handleLine(cancel(1));
  await settle();
  assert.deepEqual(written, []);
  assert.deepEqual(fates, ['not_sent']);
});

test('a handler that fails after attaching work answers with its error, and the work hears "not_sent"', async () => {
  const fates: ReplyFate[] = [];
  const { dispatcher, written } = harness((_params, req) => {
    req.afterReply((fate) => {
      fates.push(fate);
    });
    throw new Error('boom');
  });
  dispatcher.handleLine(request(7));
  await settle();
  assert.equal((written[0]!.message.error as { code: number }).code, -32603);
  assert.deepEqual(fates, ['not_sent']);
});

test('work attached after the reply was already flushed hears "not_sent"', async () => {
  const fates: ReplyFate[] = [];
  let late: (() => void) | undefined;
  const { dispatcher } = harness((_params, req) => {
    late = () => req.afterReply((fate) => {
      fates.push(fate);
    });
    return {};
  });
  dispatcher.handleLine(request(1));
  await settle();
  late!();
  await settle();
  assert.deepEqual(fates, ['not_sent']);
});

test('idle waits for the write and for the after-reply work, and a failing action is logged, not thrown', async () => {
  let finishWork: () => void = () => undefined;
  const { dispatcher, written, logs } = harness((_params, req) => {
    req.afterReply(() => new Promise<void>((resolve) => {
      finishWork = resolve;
    }));
    req.afterReply(() => {
      throw new Error('commit failed');
    });
    return {};
  });
  dispatcher.handleLine(request(1));
  let isIdle = false;
  void dispatcher.whenIdle().then(() => {
    isIdle = true;
  });
  await settle();
  assert.equal(isIdle, false, 'the reply is still being written');
  written[0]!.done!(null);
  await settle();
  assert.equal(isIdle, false, 'the after-reply work is still running');
  finishWork();
  await settle();
  assert.equal(isIdle, true);
  assert.match(logs.join('\n'), /after-reply work \(sent\) failed: .*commit failed/);
});

test('replies without after-reply work are written without waiting for their callback', async () => {
  const { dispatcher, written } = harness(() => ({}));
  dispatcher.handleLine(request(1));
  dispatcher.handleLine(request(2));
  await settle();
  assert.deepEqual(written.map((w) => w.message.id), [1, 2]);
  assert.deepEqual(written.map((w) => w.done), [undefined, undefined]);
  await dispatcher.whenIdle();
});

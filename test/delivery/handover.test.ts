// The one settle of handed-over mail (src/delivery/handover.ts, the engine
// change mail_settle) that a tool's pull, a hook's answer and `opencomms
// read` share: committed as delivered once the reply was written, counted by
// how it went; given back unsent when it was not; and only while it is still
// in flight under the handover's owner.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { drainQueue, type DeliveryOwner } from '../../src/engine/index';
import { handoverOwner, settleHandover, type MailHandover } from '../../src/delivery/handover';
import type { Store } from '../../src/store/index';
import { channelWith, historyRecord, send, stateOf, statusOf, tempProject } from '../hooks/support';
import { edit } from '../helpers/edit';

const ALICE = 'alice-1';
const BOB = 'bob-1';

/** Bob's mail from Alice, drained in flight under this process (as a pull or a hook does). */
async function handedOver(t: TestContext, count: number): Promise<{ store: Store; owner: DeliveryOwner; ids: string[] }> {
  const store = await channelWith(tempProject(t), 'dev', [{ id: ALICE, role: 'author' }, { id: BOB, role: 'reviewer' }]);
  t.after(() => store.close());
  await send(store, 'dev', ALICE, BOB, Array.from({ length: count }, (_, i) => `message ${i}`));
  let owner: DeliveryOwner | undefined;
  let ids: string[] = [];
  await edit(store, (state, ctx) => {
    owner = handoverOwner(ctx.now(), 60_000);
    ids = drainQueue(state, BOB, { owner, now: ctx.now() }).map((e) => e.message_id);
    return { ok: true, message: 'drained' };
  });
  assert.equal(ids.length, count);
  return { store, owner: owner!, ids };
}

test('a written hook answer commits its mail as delivered via the hook', async (t) => {
  const { store, owner, ids } = await handedOver(t, 2);
  await settleHandover(store, { memberId: BOB, owner, ids, via: 'hook' }, true);
  for (const id of ids) {
    assert.equal(statusOf(store, 'dev', id), 'delivered');
    assert.equal(historyRecord(store, 'dev', id)?.delivered_via, 'hook');
  }
});

test('a written pull reply commits announced mail via the doorbell and the rest as pulled', async (t) => {
  const { store, owner, ids } = await handedOver(t, 2);
  await settleHandover(store, { memberId: BOB, owner, ids, via: 'pull', rungIds: [ids[0]!] }, true);
  assert.deepEqual(ids.map((id) => historyRecord(store, 'dev', id)?.delivered_via), ['doorbell', 'pull']);
});

test('an unwritten reply gives its mail back to pending with the attempt undone', async (t) => {
  const { store, owner, ids } = await handedOver(t, 2);
  for (const via of ['hook', 'pull'] as const) {
    await settleHandover(store, { memberId: BOB, owner, ids, via }, false);
    for (const id of ids) {
      const envelope = stateOf(store).messages[id]!;
      assert.deepEqual([envelope.delivery_status, envelope.attempts, envelope.delivery_owner], ['pending', 0, null], `${via}: ${id}`);
    }
    await edit(store, (state, ctx) => {
      drainQueue(state, BOB, { owner, now: ctx.now() });
      return { ok: true, message: 'drained again' };
    });
  }
});

test('mail no longer in flight under the handover\'s owner is left as it is, and malformed arguments change nothing', async (t) => {
  const { store, owner, ids } = await handedOver(t, 1);
  const other: MailHandover = { memberId: BOB, owner: { ...owner, pid: owner.pid + 1 }, ids, via: 'pull' };
  await settleHandover(store, other, true);
  await settleHandover(store, other, false);
  assert.equal(statusOf(store, 'dev', ids[0]!), 'in_flight');
  const refused = await store.mutate('mail_settle', { member: BOB, owner, ids, via: 'push' as 'pull', sent: true });
  assert.equal(refused.data?.reason, 'invalid_argument');
  assert.equal(statusOf(store, 'dev', ids[0]!), 'in_flight');
});

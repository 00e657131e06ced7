import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  commitDelivery, compareOrderForTest, disconnectChannel, drainQueue, isFinishedForTest, kickChannel, requeueFailedDelivery,
  sendMessage, sweepInFlight, type State, type ToolResult,
} from './property-support';
import { channelWith, fakeCtx, simulateSave, type FakeCtx } from './helpers';

const MEMBERS = ['a', 'b', 'c'];
const CHANNELS = ['dev', 'ops'];

type Step =
  | { kind: 'send'; channel: number; sender: number; to: number; broadcast: boolean }
  | { kind: 'drain'; recipient: number; channel: number; limit: number; pid: number; lease: number }
  | { kind: 'commit'; recipient: number; pick: number }
  | { kind: 'requeue'; recipient: number; pick: number }
  | { kind: 'sweep'; alive: number }
  | { kind: 'disconnect'; channel: number; member: number }
  | { kind: 'kick'; channel: number; target: number }
  | { kind: 'save' }
  | { kind: 'tick'; ms: number };

const idx = (n: number) => fc.integer({ min: 0, max: n - 1 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('send' as const), channel: idx(2), sender: idx(3), to: idx(3), broadcast: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('drain' as const), recipient: idx(3), channel: idx(3), limit: fc.integer({ min: 0, max: 3 }), pid: fc.integer({ min: 1, max: 3 }), lease: fc.integer({ min: 1, max: 5000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('commit' as const), recipient: idx(3), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('requeue' as const), recipient: idx(3), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sweep' as const), alive: fc.integer({ min: 0, max: 7 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('disconnect' as const), channel: idx(2), member: idx(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('kick' as const), channel: idx(2), target: idx(3) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'save' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 4000 }) }) },
);

interface World {
  ctx: FakeCtx;
  state: State;
  known: Set<string>;
  finished: Map<string, string>;
  counter: number;
}

/** Like the store: a refused operation leaves the saved state as it was. */
function transact(world: World, op: (draft: State) => ToolResult): void {
  const draft = structuredClone(world.state);
  if (op(draft).ok) world.state = draft;
}

function inFlightFor(state: State, recipient: string): string[] {
  return Object.values(state.messages)
    .filter((e) => e.recipient_session_id === recipient && e.delivery_status === 'in_flight')
    .map((e) => e.message_id);
}

function subset(ids: string[], pick: number): string[] {
  return ids.filter((_, i) => ((pick >> i) & 1) === 1 || ids.length === 1);
}

function apply(world: World, step: Step): void {
  const { ctx } = world;
  switch (step.kind) {
    case 'send':
      world.counter += 1;
      transact(world, (s) => sendMessage(s, {
        channel: CHANNELS[step.channel]!, session_id: MEMBERS[step.sender]!, content: `c${world.counter}`,
        to: step.broadcast ? null : MEMBERS[step.to]!, broadcast: step.broadcast,
      }, ctx));
      break;
    case 'drain':
      drainQueue(world.state, MEMBERS[step.recipient]!, {
        channel: step.channel < 2 ? CHANNELS[step.channel] : undefined,
        limit: step.limit === 0 ? undefined : step.limit,
        owner: { pid: step.pid, host: 'h', lease_until: ctx.now() + step.lease },
        now: ctx.now(),
        ignoreCooldown: step.pid === 3,
      });
      break;
    case 'commit': {
      const who = MEMBERS[step.recipient]!;
      commitDelivery(world.state, who, subset(inFlightFor(world.state, who), step.pick), 'push', ctx.now());
      break;
    }
    case 'requeue': {
      const who = MEMBERS[step.recipient]!;
      // A failed delivery gives back what its own drain handed over: the ids
      // picked are offered under the owner of the first, the rest must stay put.
      const picked = subset(inFlightFor(world.state, who), step.pick);
      const owner = picked.length > 0 ? world.state.messages[picked[0]!]!.delivery_owner : undefined;
      if (owner) requeueFailedDelivery(world.state, who, picked, owner);
      break;
    }
    case 'sweep':
      sweepInFlight(world.state, (owner) => ((step.alive >> (owner.pid - 1)) & 1) === 1, ctx.now());
      break;
    case 'disconnect':
      transact(world, (s) => disconnectChannel(s, { channel: CHANNELS[step.channel]!, session_id: MEMBERS[step.member]! }, ctx));
      break;
    case 'kick': {
      const channel = world.state.channels[CHANNELS[step.channel]!];
      const coordinator = channel?.members[0]?.session_id ?? 'a';
      transact(world, (s) => kickChannel(s, { channel: CHANNELS[step.channel]!, session_id: coordinator, target_session_id: MEMBERS[step.target]! }, ctx));
      break;
    }
    case 'save':
      simulateSave(world.state, ctx.history);
      break;
    case 'tick':
      ctx.advance(step.ms);
      break;
  }
}

function checkInvariants(world: World): void {
  const { state } = world;
  const history = new Map(world.ctx.history.all().map((r) => [r.message_id, r]));
  for (const id of Object.keys(state.messages)) world.known.add(id);
  const queuedAt = new Map<string, string>();
  for (const [recipient, queue] of Object.entries(state.queues)) {
    assert.ok(queue.length > 0, 'no empty queues are kept');
    for (let i = 0; i < queue.length; i += 1) {
      const id = queue[i]!;
      assert.equal(queuedAt.has(id), false, `${id} is queued twice`);
      queuedAt.set(id, recipient);
      const envelope = state.messages[id];
      assert.ok(envelope, `${id} is queued but missing`);
      assert.equal(envelope.delivery_status, 'pending', `${id} is queued while ${envelope.delivery_status}`);
      assert.equal(envelope.recipient_session_id, recipient);
      if (i > 0) assert.ok(compareOrderForTest(state.messages[queue[i - 1]!]!, envelope) < 0, `queue of ${recipient} is out of send order`);
    }
  }
  for (const envelope of Object.values(state.messages)) {
    assert.equal(history.has(envelope.message_id), false, `${envelope.message_id} is both live and in history`);
    if (envelope.delivery_status === 'pending') assert.ok(queuedAt.has(envelope.message_id), `pending ${envelope.message_id} is in no queue`);
  }
  for (const id of world.known) {
    const envelope = state.messages[id] ?? history.get(id);
    assert.ok(envelope, `${id} disappeared`);
    const earlier = world.finished.get(id);
    if (earlier !== undefined) assert.equal(envelope.delivery_status, earlier, `${id} changed after it finished`);
    else if (isFinishedForTest(envelope.delivery_status)) world.finished.set(id, envelope.delivery_status);
    assert.ok(envelope.attempts <= 5, 'attempts never pass the cap');
  }
}

test('random sends, deliveries, failures, sweeps, removals and saves never lose, duplicate or reorder mail', () => {
  fc.assert(fc.property(fc.array(stepArb, { minLength: 1, maxLength: 80 }), (steps) => {
    const ctx = fakeCtx();
    const state = channelWith(ctx, MEMBERS, 'dev');
    channelWith(ctx, ['a', 'b'], 'ops', state);
    state.channels.dev!.members[2]!.stale_policy = { mode: 'window', window_ms: 5000 };
    for (const channel of Object.values(state.channels)) channel.rate_limit = 1000;
    const world: World = { ctx, state, known: new Set(), finished: new Map(), counter: 0 };
    checkInvariants(world);
    for (const step of steps) {
      apply(world, step);
      checkInvariants(world);
    }
  }), { numRuns: 300 });
});

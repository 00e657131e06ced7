// The Redis turn line (src/store/redis/turns.ts, turn-scripts.ts) when a
// writer leaves it: killed while it holds its turn, or giving up while it
// waits. Either way the next writer must get the turn at once, not after a
// lease, and the line must not keep the ticket. Real redis-server; the
// killed writer is a real process.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomHex } from '../../../src/process/crypto';
import { RedisClient } from '../../../src/store/redis/client';
import { createRedisStore, type RedisStore, type RedisStoreOptions } from '../../../src/store/redis/redis-store';
import { TEST_CODEC } from '../test-codec';
import { OK } from '../helpers';
import { onLines } from '../../helpers/lines';
import { configFor, SKIP_WITHOUT_REDIS, startRedis, USERS } from './server';
import { until } from '../../helpers/wait';
import { edit } from '../../helpers/edit';

const skip = SKIP_WITHOUT_REDIS;
const HOLDER = join(__dirname, '..', '..', '..', '..', 'test', 'store', 'redis', 'fixtures', 'turn-holder.cjs');
// Long on purpose: a writer that waited for the lease would take this long.
const LEASE_MS = 20_000;

interface Line {
  projectId: string;
  open(options?: Partial<RedisStoreOptions>): RedisStore;
  /** turn-next and turn-serving as the server holds them (serving absent: one past next). */
  turns(): Promise<{ next: number; serving: number }>;
}

async function line(t: TestContext): Promise<Line & { port: number }> {
  const server = await startRedis(t);
  const projectId = `turns-${randomHex(4)}`;
  const dir = mkdtempSync(join(tmpdir(), 'oc-redis-turns-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const raw = new RedisClient({ host: '127.0.0.1', port: server.port, isTls: false, username: USERS.agent.name, password: USERS.agent.password, db: 0, timeoutMs: 2_000 });
  t.after(() => raw.close());
  return {
    port: server.port,
    projectId,
    open: (options = {}) => {
      const store = createRedisStore({ config: configFor(server.port, projectId), codec: TEST_CODEC, projectDir: dir, turnLeaseMs: LEASE_MS, ...options });
      t.after(() => store.close());
      return store;
    },
    turns: async () => {
      const [next, serving] = (await raw.command(['MGET', `oc:{${projectId}}:turn-next`, `oc:{${projectId}}:turn-serving`])) as (Buffer | null)[];
      const n = Number(next ?? 0);
      return { next: n, serving: serving === null ? n + 1 : Number(serving) };
    },
  };
}

test('a writer SIGKILLed while it holds its turn is skipped at once: the writer behind it commits in well under its lease', { skip, timeout: 60_000 }, async (t) => {
  const { port, projectId, open, turns } = await line(t);
  const holder = spawn(process.execPath, [HOLDER, JSON.stringify(configFor(port, projectId)), String(LEASE_MS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => holder.kill('SIGKILL'));
  let stderr = '';
  holder.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const holding = new Promise<void>((resolve) => onLines(holder.stdout!, (text) => text === 'holding' && resolve()));
  await Promise.race([holding, once(holder, 'exit').then(() => assert.fail(`the holder exited: ${stderr}`))]);

  const waiter = open({ lockTimeoutMs: 40_000 });
  let runs = 0;
  const committed = edit(waiter, (s) => {
    runs++;
    s.errors.push({ at: 1, message: 'behind the holder' });
    return OK;
  });
  await until('the waiter took the ticket behind the holder', async () => (await turns()).next === 2);
  const killedAt = Date.now();
  holder.kill('SIGKILL');
  await committed;
  const waited = Date.now() - killedAt;
  t.diagnostic(`the waiter committed ${waited} ms after the kill (lease ${LEASE_MS} ms)`);
  assert.ok(waited < 3_000, `the waiter committed ${waited} ms after the kill`);
  assert.equal(runs, 1, 'the waiter ran its change once, on its turn');
  assert.deepEqual((await waiter.readLatest((s) => s.errors)).map((e) => e.message), ['behind the holder']);
  const after = await turns();
  assert.ok(after.serving > after.next, `the line is empty (next ${after.next}, serving ${after.serving})`);
});

test('a waiter that gives up takes its ticket out of the line: when the holder commits, the line is empty and the next writer commits at once', { skip, timeout: 60_000 }, async (t) => {
  const { open, turns, projectId } = await line(t);
  const rival = open();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let isHolding!: () => void;
  const holding = new Promise<void>((resolve) => (isHolding = resolve));
  let holderRuns = 0;
  // The holder's first commit meets a rival commit (so it takes the turn); on its turn it waits for the gate.
  const holder = open({
    beforeCommit: async () => {
      if (holderRuns++ === 0) {
        await rival.client.command(['SET', `oc:{${projectId}}:version`, 'a rival commit']);
        return;
      }
      isHolding();
      await gate;
    },
  });
  const held = edit(holder, (s) => {
    s.errors.push({ at: 0, message: 'holder' });
    return OK;
  });
  await holding;
  const quitter = open({ lockTimeoutMs: 300 });
  await assert.rejects(edit(quitter, (s) => {
    s.errors.push({ at: 1, message: 'never' });
    return OK;
  }), { code: 'lock_timeout' });
  assert.equal((await turns()).next, 2, 'the quitter had taken a ticket behind the holder');
  release();
  await held;
  const after = await turns();
  assert.ok(after.serving > after.next, `the line is empty once the holder committed (next ${after.next}, serving ${after.serving})`);
  const next = open({ lockTimeoutMs: 2_000 });
  const started = Date.now();
  await edit(next, (s) => {
    s.errors.push({ at: 2, message: 'next' });
    return OK;
  });
  assert.ok(Date.now() - started < 1_000, `the next writer waited ${Date.now() - started} ms`);
  assert.deepEqual((await next.readLatest((s) => s.errors)).map((e) => e.message), ['holder', 'next']);
});

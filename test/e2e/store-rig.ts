// A rig of servers on either store, for tests that run once per store: on
// the file store every server shares ONE project folder; on Redis each has a
// folder of its own ("its machine"), all on one Redis project of a real
// redis-server.
import { test, type TestContext } from 'node:test';
import { randomHex } from '../../src/process/crypto';
import { startServer, tempProject, type ServerProcess } from '../helpers/server';
import { startInProcess, type InProcessServer } from '../helpers/server-in-process';
import { SKIP_WITHOUT_REDIS, startRedis, USERS } from '../store/redis/server';
import { memberEnv } from './tools-support';

export type StoreKind = 'file' | 'redis';
export const STORES: readonly StoreKind[] = ['file', 'redis'];

export interface Rig {
  kind: StoreKind;
  /**
   * A server speaking as `memberId`, started but not yet initialized: on the
   * one shared folder (files), or on a folder of its own on the shared Redis
   * project (Redis).
   */
  start(memberId: string, host?: string): ServerProcess;
  /** The same, initialized. */
  member(memberId: string, host?: string): Promise<ServerProcess>;
  /** The same server, initialized, but running in this process (test/helpers/server-in-process.ts). */
  localMember(memberId: string, host?: string): Promise<InProcessServer>;
  /** A project folder and the store variables a CLI command needs to read this rig's project. */
  cli(): { project: string; env: Record<string, string | undefined> };
}

export async function rigFor(t: TestContext, kind: StoreKind): Promise<Rig> {
  // Nothing inherited may pick the store: each kind sets every store variable.
  let storeEnv: Record<string, string | undefined> = {
    OPENCOMMS_STORE: undefined, OPENCOMMS_STORE_PASSWORD: undefined, OPENCOMMS_STORE_PASSWORD_FILE: undefined, OPENCOMMS_STORE_CA: undefined,
  };
  let folderFor: () => string;
  if (kind === 'file') {
    const shared = tempProject(t);
    folderFor = () => shared;
  } else {
    const redis = await startRedis(t);
    storeEnv = {
      ...storeEnv,
      OPENCOMMS_STORE: `redis://${USERS.agent.name}@127.0.0.1:${redis.port}/0`,
      OPENCOMMS_STORE_PASSWORD: USERS.agent.password,
      OPENCOMMS_PROJECT_ID: `two-stores-${randomHex(4)}`,
    };
    folderFor = () => tempProject(t);
  }
  const start = (memberId: string, host = 'mcp'): ServerProcess => {
    const folder = folderFor();
    const server = startServer(t, { project: folder, args: ['--project', folder, '--host', host], env: { ...memberEnv(memberId), ...storeEnv } });
    // A server SIGKILLed with a request still unwritten must not crash the test with EPIPE.
    server.child.stdin.on('error', () => undefined);
    return server;
  };
  return {
    kind,
    start,
    cli: () => ({ project: folderFor(), env: { ...storeEnv } }),
    member: async (memberId, host) => {
      const server = start(memberId, host);
      await server.initialize();
      return server;
    },
    localMember: async (memberId, host = 'mcp') => {
      const folder = folderFor();
      const server = startInProcess(t, { project: folder, host, env: { ...memberEnv(memberId), ...storeEnv } });
      await server.initialize();
      return server;
    },
  };
}

/** Registers `name` once per store, each with a fresh rig. */
export function bothStores(name: string, options: { timeout?: number }, fn: (t: TestContext, rig: Rig) => Promise<void>): void {
  for (const kind of STORES) {
    const skip = kind === 'redis' ? SKIP_WITHOUT_REDIS : false;
    test(`${name} (${kind} store)`, { ...options, skip }, async (t) => fn(t, await rigFor(t, kind)));
  }
}

/**
 * As bothStores, with the rig's members served in this process: the table of
 * engine rules, whose subject is the rules on each store and not the process.
 * The doorbell test and the storms below keep real server processes.
 */
export function bothStoresInProcess(name: string, options: { timeout?: number }, fn: (t: TestContext, rig: LocalRig) => Promise<void>): void {
  for (const kind of STORES) {
    const skip = kind === 'redis' ? SKIP_WITHOUT_REDIS : false;
    test(`${name} (${kind} store)`, { ...options, skip }, async (t) => {
      const rig = await rigFor(t, kind);
      return fn(t, { kind, member: rig.localMember });
    });
  }
}

export interface LocalRig {
  kind: StoreKind;
  member(memberId: string, host?: string): Promise<InProcessServer>;
}


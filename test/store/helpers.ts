// Shared test plumbing: temp projects, a fault-injecting fs port, envelopes.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { Envelope } from '../../src/engine/types';
import { FsPort, NODE_FS } from '../../src/files/fs-port';
import { createStore, StoreOptions } from '../../src/store/file/store';
import type { Store } from '../../src/store/contract';
import { TEST_CODEC } from './test-codec';

/** A fresh project dir under the OS temp dir, removed after the test. */
export function tempProject(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'oc-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function testStore(projectDir: string, options: Partial<StoreOptions> = {}): Store {
  return createStore({ projectDir, codec: TEST_CODEC, ...options });
}

export interface Fault {
  method: keyof FsPort;
  code: string;
  /** Only calls whose first argument (a path or fd) passes this test fail. */
  when?: (first: unknown) => boolean;
  /** Fail only this many times (default: always). */
  times?: number;
}

export interface FaultyFs extends FsPort {
  calls: { method: keyof FsPort; first: unknown }[];
  faults: Fault[];
  /** Adds a fault; fd-taking calls are matched by the path their fd was opened on. */
  fail(fault: Fault): void;
}

/** The real fs with injectable errno failures; records every call. */
export function faultyFs(faults: Fault[] = []): FaultyFs {
  const port = { calls: [], faults } as unknown as FaultyFs;
  port.fail = (f: Fault) => void faults.push(f);
  for (const method of Object.keys(NODE_FS) as (keyof FsPort)[]) {
    const real = NODE_FS[method] as (...args: unknown[]) => unknown;
    (port as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      port.calls.push({ method, first: args[0] });
      const fault = port.faults.find((f) => f.method === method && (f.when ? f.when(args[0]) : true) && (f.times ?? 1) > 0);
      if (fault) {
        if (fault.times !== undefined) fault.times--;
        throw Object.assign(new Error(`${fault.code}: injected ${method}`), { code: fault.code });
      }
      return real(...args);
    };
  }
  return port;
}

/** Like faultyFs, but fd-taking calls can be targeted by the path the fd was opened on. */
export function faultyFsByPath(faults: Fault[] = []): FaultyFs {
  const port = faultyFs([]);
  const fdPaths = new Map<unknown, string>();
  (port as unknown as { fdPaths: Map<unknown, string> }).fdPaths = fdPaths;
  const open = port.openSync;
  port.openSync = (p, flags, mode) => {
    const fd = open(p, flags, mode);
    fdPaths.set(fd, p);
    return fd;
  };
  port.fail = (f: Fault) => {
    const test = f.when;
    port.faults.push({ ...f, when: (first) => (test ? test(typeof first === 'number' ? fdPaths.get(first) : first) : true) });
  };
  for (const f of faults) port.fail(f);
  return port;
}

export function tempFilesIn(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.tmp') || n.endsWith('.stale'));
  } catch {
    return [];
  }
}

let counter = 0;

export function envelope(overrides: Partial<Envelope> = {}): Envelope {
  counter++;
  const id = overrides.message_id ?? `ocm_${counter.toString(16).padStart(32, '0')}`;
  return {
    message_id: id,
    channel_id: 'chn_test',
    sender_session_id: 'alice',
    sender_role: 'writer',
    recipient_session_id: 'bob',
    recipient_role: 'reviewer',
    timestamp: 1_700_000_000_000 + counter,
    message_type: 'manual',
    content: 'hello',
    reply_to: null,
    root_message_id: null,
    hop_count: 0,
    correlation_id: `cor_${counter.toString(16).padStart(32, '0')}`,
    delivery_status: 'pending',
    delivered_at: null,
    attempts: 0,
    delivery_method: null,
    ...overrides,
  };
}

export const OK = { ok: true, message: 'ok' } as const;
export const REFUSED = { ok: false, message: 'refused', data: { reason: 'nope' } } as const;

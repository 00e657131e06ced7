// The shape of tools/: who a call speaks for is handed to its handler, a
// protected change names an engine change as the caller's member, and a handler's arguments carry
// the types of its schema.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { State } from '../../src/engine';
import { buildTools } from '../../src/tools/catalog';
import { CHANNEL_ARG, defineTool, READ_TOOL } from '../../src/tools/define-tool';
import type { Identity } from '../../src/tools/env-identity';
import { DIRECT_CALL, ToolRegistry } from '../../src/tools/registry';
import { objectSchema } from '../../src/tools/schema';
import { ToolServices } from '../../src/tools/services';
import type { Caller } from '../../src/tools/identity-keeper';

const ROOT = join(__dirname, '..', '..', '..');
const TOOLS_DIR = join(ROOT, 'src', 'tools');

function tempProject(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-tools-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function servicesFor(projectDir: string, memberId?: string): ToolServices {
  const env: NodeJS.ProcessEnv = { OPENCOMMS_NO_SPAWN: '1' };
  if (memberId !== undefined) env.OPENCOMMS_MEMBER_ID = memberId;
  return new ToolServices({ projectDir, host: 'test', env, log: () => undefined });
}

const asCaller = (identity: Identity): Caller => ({ call: DIRECT_CALL, identity });
const PINNED_ALICE: Identity = { kind: 'pinned', memberId: 'sess_alice', source: 'env' };

test('identify returns who the call speaks for, and the handler acts for exactly that', async (t) => {
  const projectDir = tempProject(t);
  assert.deepEqual(await servicesFor(projectDir, 'sess_alice').identities.identify(DIRECT_CALL), PINNED_ALICE);
  const refused = await servicesFor(projectDir, 'not a member id').identities.identify(DIRECT_CALL);
  assert.equal(refused.kind, 'unpinned');
  // The identity goes along with the caller; nothing is looked up behind its back.
  const services = servicesFor(projectDir, 'sess_alice');
  const pinned = services.identities.pin(asCaller({ kind: 'unpinned', problem: 'no session' }));
  assert.deepEqual(pinned, { refusal: { ok: false, message: 'no session', data: { reason: 'unpinned' } } });
  assert.deepEqual(services.identities.pin(asCaller(PINNED_ALICE)), { memberId: 'sess_alice' });
});

test('changeAsMember answers unpinned before the change, and the change answers channel_not_found or not_member before it acts', async (t) => {
  const projectDir = tempProject(t);
  const registry = new ToolRegistry(buildTools(servicesFor(projectDir, 'sess_alice')));
  const created = await registry.call('opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'p' });
  assert.equal(created.structuredContent.ok, true);
  const services = servicesFor(projectDir, 'sess_alice');
  const promptOf = (): string | undefined => services.store.read((state) => state.channels.dev?.members[0]?.role_prompt);
  const bob = asCaller({ kind: 'pinned', memberId: 'sess_bob', source: 'env' });
  const change = (caller: Caller, channel: string, label: string) => services.identities.changeAsMember(caller, 'channel_update_role', { channel, role_prompt: label });
  const unpinned = await change(asCaller({ kind: 'unpinned', problem: 'no session' }), 'dev', 'unpinned');
  assert.equal(unpinned.data?.reason, 'unpinned');
  assert.equal((await change(asCaller(PINNED_ALICE), 'nowhere', 'missing')).data?.reason, 'channel_not_found');
  assert.equal((await change(bob, 'dev', 'stranger')).data?.reason, 'not_member');
  // Without a channel the member must be in some channel: bob is in none.
  assert.equal((await services.identities.changeAsMember(bob, 'mail_pull', { pid: process.pid, host: services.machine, lease_ms: 1000 })).data?.reason, 'not_member');
  const read = await services.identities.readInChannel(bob, 'dev', () => ({ ok: true, message: 'read' }));
  assert.equal(read.data?.reason, 'not_member');
  assert.equal(promptOf(), 'p');
  assert.equal((await change(asCaller(PINNED_ALICE), 'dev', 'member')).ok, true);
  assert.equal(promptOf(), 'member');
  const any = await services.identities.changeAsMember(asCaller(PINNED_ALICE), 'mail_pull', { pid: process.pid, host: services.machine, lease_ms: 1000 });
  assert.equal(any.ok, true);
  assert.equal((await services.identities.readInChannel(asCaller(PINNED_ALICE), 'dev', (_state: State, me: string) => ({ ok: true, message: `view:${me}` }))).message, 'view:sess_alice');
});

test('a handler reads its arguments with the types its schema declares', async () => {
  const tool = defineTool({
    name: 'demo',
    title: 'Demo',
    description: 'Echoes.',
    inputSchema: objectSchema({ channel: CHANNEL_ARG, limit: { type: 'integer' }, mode: { type: 'string', enum: ['a', 'b'] } }, ['channel']),
    annotations: READ_TOOL,
    handler: (a) => {
      const channel: string = a.channel;
      const limit: number | undefined = a.limit;
      const mode: 'a' | 'b' | undefined = a.mode;
      // @ts-expect-error a channel is a string, not a number
      const wrong: number = a.channel;
      // @ts-expect-error the schema declares no such argument
      void a.chanel;
      void wrong;
      return { ok: true, message: `${channel} ${limit} ${mode}` };
    },
  });
  // @ts-expect-error required names only declared properties
  objectSchema({ channel: CHANNEL_ARG }, ['chanel']);
  assert.deepEqual(await tool.handler({ channel: 'dev', limit: 3, mode: 'b' }, asCaller(PINNED_ALICE)), { ok: true, message: 'dev 3 b' });
});

test('every file of src/tools stays under 400 lines', () => {
  for (const name of readdirSync(TOOLS_DIR)) {
    const lines = readFileSync(join(TOOLS_DIR, name), 'utf8').split('\n').length - 1;
    assert.ok(lines <= 400, `src/tools/${name} has ${lines} lines`);
  }
});

test('no module-level name of src/tools is renamed in the shipped bundle', () => {
  const bundle = readFileSync(join(ROOT, 'dist', 'opencomms.js'), 'utf8');
  const words = new Set(bundle.match(/(?<![\w$])[A-Za-z_$][\w$]*/g) ?? []);
  const renamed: string[] = [];
  for (const name of readdirSync(TOOLS_DIR)) {
    const source = readFileSync(join(TOOLS_DIR, name), 'utf8');
    for (const [, declared] of source.matchAll(/^(?:export )?(?:async )?(?:const|let|var|function|class) ([A-Za-z_$][\w$]*)/gm)) {
      for (let n = 2; n < 100; n += 1) if (words.has(`${declared}${n}`)) renamed.push(`${declared}${n} (src/tools/${name})`);
    }
  }
  assert.deepEqual(renamed, []);
});

// A hand-edited state the store could not use later is refused when it is
// loaded (and preserved), never accepted and then tripped over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as engine from '../../src/engine';
import { openStore } from '../../src/store';
import { buildTools } from '../../src/tools/catalog';
import { ToolRegistry } from '../../src/tools/registry';
import { ToolServices } from '../../src/tools/services';
import { tempProject } from './helpers';
import { statePathOf } from '../helpers/store-paths';
import { edit } from '../helpers/edit';

function toolsAs(projectDir: string, memberId: string): ToolRegistry {
  const services = new ToolServices({
    projectDir, host: 'test', env: { OPENCOMMS_NO_SPAWN: '1', OPENCOMMS_MEMBER_ID: memberId }, log: () => undefined,
  });
  return new ToolRegistry(buildTools(services));
}

// PROTOCOL 4.3: every load checks the whole file; a loaded state must not
// crash an operation. A channel id is only checked to be a string, but the
// store uses it as a file name (archives/<id>.json, history/<id>.jsonl) and
// writeArchive throws a plain Error (not a StoreFault) for an id outside
// CHANNEL_ID_PATTERN, so opencomms_save_session answers -32603.
test('a channel whose id is not a valid file name is refused at load (the file preserved), so save_session answers a refusal instead of throwing', async (t) => {
  const dir = tempProject(t);
  const store = openStore({ projectDir: dir });
  const base = { role_prompt: 'p', project_id: 'local-project', worktree: dir, delivery_mode: 'pull' as const };
  const created = await edit(store, (s, ctx) => engine.createChannel(s, { ...base, channel: 'dev', role: 'writer', session_id: 'alice' }, ctx));
  assert.equal(created.ok, true, created.message);
  // A hand edit of the id (the reference writes chn_ + 32 hex; PROTOCOL 4.2 says the same).
  const raw = JSON.parse(readFileSync(statePathOf(store), 'utf8'));
  raw.channels.dev.id = 'chn_bad.id';
  writeFileSync(statePathOf(store), JSON.stringify(raw));
  const parsed = engine.parseState(readFileSync(statePathOf(store), 'utf8'), Date.now());
  assert.equal(parsed.ok, false);
  assert.match(parsed.ok ? '' : parsed.reason, /id/);

  const registry = toolsAs(dir, 'alice');
  let result: Awaited<ReturnType<ToolRegistry['call']>> | undefined;
  await assert.doesNotReject(async () => {
    result = await registry.call('opencomms_save_session', { channel: 'dev', summary: 'done' });
  }, 'save_session must answer a tool result (ok or a refusal), not throw');
  assert.ok(result);
  assert.equal((result as { structuredContent: { ok: boolean } }).structuredContent.ok, false);
  const copies = readdirSync(store.stateDir).filter((n) => n.startsWith('state.corrupt-'));
  assert.equal(copies.length, 1, 'the rejected file is preserved');
  assert.match(readFileSync(join(store.stateDir, copies[0]!), 'utf8'), /chn_bad\.id/);
});

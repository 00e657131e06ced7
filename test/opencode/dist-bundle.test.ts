// The file OpenCode loads: an ES module whose exports are all plugin functions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FakeClient } from './helpers';

// A Function-built import keeps tsc's CommonJS output from turning it into require().
const importEsm = new Function('url', 'return import(url)') as (url: string) => Promise<Record<string, any>>;
const bundleUrl = pathToFileURL(join(__dirname, '..', '..', '..', 'dist', 'opencode-plugin.js')).href;

test('dist/opencode-plugin.js exports the plugin function as OpenCommsPlugin and as default, and nothing else', async () => {
  const mod = await importEsm(bundleUrl);
  assert.equal(typeof mod.OpenCommsPlugin, 'function');
  assert.equal(mod.default, mod.OpenCommsPlugin);
  assert.deepEqual(Object.keys(mod).sort(), ['OpenCommsPlugin', 'default']);
});

test("the bundled plugin builds its tools with OpenCode's own zod when @opencode-ai/plugin resolves", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-opencode-dist-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { OpenCommsPlugin } = await importEsm(bundleUrl);
  const hooks = await OpenCommsPlugin({ client: new FakeClient(), project: { id: 'p' }, directory: dir, worktree: dir });
  t.after(() => hooks.dispose());
  const { tool } = await importEsm('@opencode-ai/plugin');
  const args = tool.schema.object(hooks.tool.opencomms_join.args);
  assert.deepEqual(args.parse({ channel: 'c', role: 'r', role_prompt: 'p' }), { channel: 'c', role: 'r', role_prompt: 'p' });
  assert.equal(args.safeParse({ channel: 'c' }).success, false);
});

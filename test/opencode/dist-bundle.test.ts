// The file OpenCode loads: an ES module whose exports are all plugin functions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// A Function-built import keeps tsc's CommonJS output from turning it into require().
const importEsm = new Function('url', 'return import(url)') as (url: string) => Promise<Record<string, unknown>>;

test('dist/opencode-plugin.js exports the plugin function as OpenCommsPlugin and as default, and nothing else', async () => {
  const root = join(__dirname, '..', '..', '..');
  const mod = await importEsm(pathToFileURL(join(root, 'dist', 'opencode-plugin.js')).href);
  assert.equal(typeof mod.OpenCommsPlugin, 'function');
  assert.equal(mod.default, mod.OpenCommsPlugin);
  assert.deepEqual(Object.keys(mod).sort(), ['OpenCommsPlugin', 'default']);
});

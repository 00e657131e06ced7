// The file OpenCode loads: an ES module whose exports are all plugin functions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
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

test("the bundled plugin builds its tools with OpenCode's own zod, which refuses wrongly typed arguments", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-opencode-dist-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { OpenCommsPlugin } = await importEsm(bundleUrl);
  const hooks = await OpenCommsPlugin({ client: new FakeClient(), project: { id: 'p' }, directory: dir, worktree: dir });
  t.after(() => hooks.dispose());
  const { tool } = await importEsm('@opencode-ai/plugin');
  const args = tool.schema.object(hooks.tool.opencomms_join.args);
  assert.deepEqual(args.parse({ channel: 'c', role: 'r', role_prompt: 'p' }), { channel: 'c', role: 'r', role_prompt: 'p' });
  assert.equal(args.safeParse({ channel: 'c' }).success, false);

  const send = tool.schema.object(hooks.tool.opencomms_send.args);
  assert.deepEqual(send.parse({ channel: 'c', content: 'hi' }), { channel: 'c', content: 'hi' });
  assert.equal(send.safeParse({ channel: 'c', content: 42 }).success, false);
  assert.equal(send.safeParse({ channel: 'c', content: 'hi', broadcast: 'yes' }).success, false);
  const timer = tool.schema.object(hooks.tool.opencomms_timer.args);
  assert.equal(timer.safeParse({ channel: 'c', action: 'start', limit_ms: 1000 }).success, true);
  assert.equal(timer.safeParse({ channel: 'c', action: 'explode' }).success, false);
  assert.equal(timer.safeParse({ channel: 'c', action: 'start', limit_ms: 1.5 }).success, false);
  const history = tool.schema.object(hooks.tool.opencomms_history.args);
  assert.equal(history.safeParse({ channel: 'c', limit: 0 }).success, false);
  assert.equal(history.safeParse({ channel: 'x'.repeat(65) }).success, false);
});

test('the bundled plugin offers the 20 tools and gives two OpenCode sessions two members of their own', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-opencode-dist-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // OpenCode runs plugins on Bun, whose ES modules have `require` (the bundle's lazy
  // node:crypto and child_process loads go through it); Node's do not, so it is lent here.
  const global = globalThis as { require?: unknown };
  const hadRequire = 'require' in global;
  if (!hadRequire) global.require = createRequire(__filename);
  t.after(() => { if (!hadRequire) delete global.require; });
  const { OpenCommsPlugin } = await importEsm(bundleUrl);
  const hooks = await OpenCommsPlugin({ client: new FakeClient(), project: { id: 'p' }, directory: dir, worktree: dir });
  t.after(() => hooks.dispose());
  assert.equal(Object.keys(hooks.tool).length, 20);
  const memberOf = async (sessionID: string): Promise<string> =>
    JSON.parse(await hooks.tool.opencomms_status.execute({}, { sessionID })).data.member_id;
  const [one, two] = [await memberOf('ses_one'), await memberOf('ses_two')];
  assert.match(one, /^sess_/);
  assert.match(two, /^sess_/);
  assert.notEqual(one, two);
  assert.equal(await memberOf('ses_one'), one);
});

test('with a Redis OPENCOMMS_STORE it cannot use (no password) the bundled plugin offers nothing and says why, instead of using the files', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-opencode-dist-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const saved = { store: process.env.OPENCOMMS_STORE, project: process.env.OPENCOMMS_PROJECT_ID, password: process.env.OPENCOMMS_STORE_PASSWORD };
  process.env.OPENCOMMS_STORE = 'redis://agent@127.0.0.1:6379/0';
  process.env.OPENCOMMS_PROJECT_ID = 'acme';
  delete process.env.OPENCOMMS_STORE_PASSWORD;
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  const restore = (name: string, value: string | undefined): void => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  t.after(() => {
    process.stderr.write = write;
    restore('OPENCOMMS_STORE', saved.store);
    restore('OPENCOMMS_PROJECT_ID', saved.project);
    restore('OPENCOMMS_STORE_PASSWORD', saved.password);
  });
  const { OpenCommsPlugin } = await importEsm(bundleUrl);
  const hooks = await OpenCommsPlugin({ client: new FakeClient(), project: { id: 'p' }, directory: dir, worktree: dir });
  process.stderr.write = write;
  assert.deepEqual(hooks, {});
  assert.match(written.join(''), /OPENCOMMS_STORE_PASSWORD.*the plugin offers no tools and delivers nothing until that is fixed/s);
  assert.equal(existsSync(join(dir, '.opencomms')), false, 'nothing was written to the files');
});

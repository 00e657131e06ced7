// What counts as a path outside this checkout, which checkout it belongs to,
// and where --fix points it (src/hosts/checkout-paths.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { scanCheckoutPaths } from '../../src/hosts/checkout-paths';

const MCP = { format: 'json', path: ['mcpServers', 'opencomms'] } as const;

/** Two checkouts side by side, each a git work tree with a server copy, and an extra build in A's dist/. */
function twoCheckouts(t: TestContext): { a: string; b: string } {
  const parent = mkdtempSync(join(tmpdir(), 'opencomms-checkouts-'));
  t.after(() => rmSync(parent, { recursive: true, force: true }));
  const a = join(parent, 'a');
  const b = join(parent, 'b');
  for (const dir of [a, b]) {
    mkdirSync(join(dir, '.git'), { recursive: true });
    mkdirSync(join(dir, '.opencomms'));
    writeFileSync(join(dir, '.opencomms', 'opencomms.js'), '');
  }
  mkdirSync(join(a, 'dist'));
  writeFileSync(join(a, 'dist', 'opencomms.js'), '');
  return { a, b };
}

function mcpJson(args: string[]): string {
  return `${JSON.stringify({ mcpServers: { opencomms: { command: 'node', args } } }, null, 2)}\n`;
}

test('the forms install writes name this checkout: variables, relative paths, the project by a link', (t) => {
  const { b } = twoCheckouts(t);
  const link = `${b}-link`;
  symlinkSync(b, link);
  t.after(() => rmSync(link, { force: true }));
  for (const args of [
    ['${CLAUDE_PROJECT_DIR:-.}/.opencomms/opencomms.js', '--project', '${CLAUDE_PROJECT_DIR:-.}'],
    ['./.opencomms/opencomms.js', '--project', '.'],
    ['${workspaceFolder}/.opencomms/opencomms.js', '--project', '${workspaceFolder}'],
    [join(link, '.opencomms/opencomms.js'), '--project', link],
    ['${SOME_OTHER_VARIABLE}/opencomms.js', '--project', '${SOME_OTHER_VARIABLE}'],
  ]) {
    assert.deepEqual(scanCheckoutPaths(b, mcpJson(args), MCP).lines, [], args.join(' '));
  }
});

test('a server in another checkout is pointed at the same file here when it exists, else at the server copy here', (t) => {
  const { a, b } = twoCheckouts(t);
  const text = mcpJson([join(a, 'dist/opencomms.js'), '--project', a]);
  const scan = scanCheckoutPaths(b, text, MCP);
  assert.deepEqual(scan.lines.map((l) => [l.line, l.paths.map((p) => [p.kind, p.checkout, p.replacement])]), [
    [6, [['server', a, join(b, '.opencomms/opencomms.js')]]], // b has no dist/opencomms.js
    [8, [['project', a, b]]],
  ]);
  mkdirSync(join(b, 'dist'));
  writeFileSync(join(b, 'dist', 'opencomms.js'), '');
  const again = scanCheckoutPaths(b, text, MCP);
  assert.equal(again.lines[0].paths[0].replacement, join(b, 'dist/opencomms.js'));
  assert.equal(again.fixed, text.replaceAll(a, b));
});

test('a relative path that climbs out of the project is foreign too, and a hook command keeps everything but its paths', (t) => {
  const { a, b } = twoCheckouts(t);
  const command = `OPENCOMMS_HOST=codex node "${a}/.opencomms/opencomms.js" hook --project "${a}"`;
  const text = `${JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command, timeout: 15 }] }] } }, null, 2)}\n`;
  const hooks = scanCheckoutPaths(b, text, undefined);
  assert.equal(hooks.lines.length, 1);
  assert.equal(hooks.fixed, text.replaceAll(a, b));
  const relative = scanCheckoutPaths(b, mcpJson(['../a/.opencomms/opencomms.js', '--project', '.']), MCP);
  assert.deepEqual(relative.lines.map((l) => l.paths.map((p) => [p.kind, p.path, p.checkout])), [[['server', join(a, '.opencomms/opencomms.js'), a]]]);
});

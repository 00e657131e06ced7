import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

test('the engine mentions no node: module, clock, randomness or process', () => {
  const files = sourceFiles(join(ROOT, 'src', 'engine'));
  assert.ok(files.length > 0);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const banned of ['node:', 'Date.now', 'Math.random', 'process.']) {
      assert.equal(text.includes(banned), false, `${relative(ROOT, file)} mentions ${banned}`);
    }
  }
});

test('the engine imports nothing outside itself', () => {
  for (const file of sourceFiles(join(ROOT, 'src', 'engine'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'/g)) {
      assert.match(match[1]!, /^\.\/[a-z0-9-]+$/, `${relative(ROOT, file)} imports ${match[1]}`);
    }
  }
});

test('the store imports nothing from tools or mcp', () => {
  for (const file of sourceFiles(join(ROOT, 'src', 'store'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:from\s+|require\()\s*'([^']+)'/g)) {
      assert.doesNotMatch(match[1]!, /(^|\/)(tools|mcp)(\/|$)/, `${relative(ROOT, file)} imports ${match[1]}`);
    }
  }
});

// The hooks room writes the state only through named engine changes
// (engine/changes/hooks.ts, hooks-wait.ts): no hook hands store.mutate a
// function. mail-step.ts is left out until its settle path names its changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const NOT_YET = new Set(['mail-step.ts']);

test('src/hooks hands store.mutate a change name, never a function', () => {
  const closure = /\.mutate\(\s*(?:async\s*)?(?:\(|function\b|[A-Za-z_$][\w$]*\s*=>)/;
  const dir = join(ROOT, 'src', 'hooks');
  let seen = 0;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts') && !NOT_YET.has(n))) {
    const text = readFileSync(join(dir, name), 'utf8');
    seen += (text.match(/\.mutate\(/g) ?? []).length;
    text.split('\n').forEach((line, i) => {
      assert.doesNotMatch(line, closure, `${relative(ROOT, join(dir, name))}:${i + 1} passes store.mutate a function: name an engine change instead`);
    });
  }
  assert.ok(seen >= 8, `expected the hooks' eight store.mutate calls outside mail-step.ts, found ${seen}`);
});

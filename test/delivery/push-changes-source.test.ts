// The push rooms (src/opencode, src/delivery) write the state only through
// named engine changes; and the engine's argv measure (engine/spawn-argv.ts),
// which cannot ask Node, counts UTF-8 bytes as Node does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { argCost, argvCost, countUtf8Bytes } from '../../src/engine';

const ROOT = join(__dirname, '..', '..', '..');

test('src/opencode and src/delivery hand store.mutate a change name, never a function', () => {
  const closure = /\.mutate\(\s*(?:async\s*)?(?:\(|function\b|[A-Za-z_$][\w$]*\s*=>)/;
  let seen = 0;
  for (const room of ['opencode', 'delivery']) {
    const dir = join(ROOT, 'src', room);
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const text = readFileSync(join(dir, name), 'utf8');
      seen += (text.match(/\.mutate\(/g) ?? []).length;
      text.split('\n').forEach((line, i) => {
        assert.doesNotMatch(line, closure, `${relative(ROOT, join(dir, name))}:${i + 1} passes store.mutate a function: name an engine change instead`);
      });
    }
  }
  assert.ok(seen >= 10, `expected the rooms' ten store.mutate calls, found ${seen}`);
});

test('countUtf8Bytes counts what Buffer.byteLength counts, surrogates and lone halves included', () => {
  const samples = ['', 'plain ascii', 'é and ß', '€ 中文', 'emoji 😀🎉', '\ud800 lone high', 'lone low \udc00', 'x'.repeat(5_000) + '😀'];
  for (const text of samples) assert.equal(countUtf8Bytes(text), Buffer.byteLength(text, 'utf8'), JSON.stringify(text.slice(0, 20)));
  assert.equal(argCost('😀', 'linux'), 5);
  assert.equal(argCost('😀', 'win32'), 7);
  assert.equal(argvCost('claude', ['-p', 'é'], 'linux'), 64 + 7 + 3 + 3);
});

// The engine's argv measure (engine/spawn-argv.ts), which cannot ask Node,
// counts UTF-8 bytes as Node does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { argCost, argvCost, countUtf8Bytes } from '../../src/engine';

const ROOT = join(__dirname, '..', '..', '..');

test('countUtf8Bytes counts what Buffer.byteLength counts, surrogates and lone halves included', () => {
  const samples = ['', 'plain ascii', 'é and ß', '€ 中文', 'emoji 😀🎉', '\ud800 lone high', 'lone low \udc00', 'x'.repeat(5_000) + '😀'];
  for (const text of samples) assert.equal(countUtf8Bytes(text), Buffer.byteLength(text, 'utf8'), JSON.stringify(text.slice(0, 20)));
  assert.equal(argCost('😀', 'linux'), 5);
  assert.equal(argCost('😀', 'win32'), 7);
  assert.equal(argvCost('claude', ['-p', 'é'], 'linux'), 64 + 7 + 3 + 3);
});

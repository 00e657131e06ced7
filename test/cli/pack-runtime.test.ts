import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { evaluatePack, HOT_PREFIX, inflatePack } from '../../src/cli/pack-runtime';

const FILE = '/nowhere/opencomms-test.js';

test('a pack body runs once as a CommonJS module and its exports come back', () => {
  const exported = evaluatePack('exports.answer = 42; module.exports.twice = (n) => n * 2;', FILE, {}, require) as Record<string, any>;
  assert.equal(exported.answer, 42);
  assert.equal(exported.twice(21), 42);
  const replaced = evaluatePack('module.exports = { whole: true };', FILE, {}, require);
  assert.deepEqual(replaced, { whole: true });
});

test('a shared module id gets the very instance the hot half holds', () => {
  const shared = { counter: { n: 0 } };
  const exported = evaluatePack(
    `const s = require(${JSON.stringify(`${HOT_PREFIX}src/shared.ts`)}); s.counter.n += 1; exports.same = s;`,
    FILE,
    { [`${HOT_PREFIX}src/shared.ts`]: shared },
    require,
  ) as Record<string, any>;
  assert.equal(exported.same, shared);
  assert.equal(shared.counter.n, 1);
});

test('a shared id the bundle does not carry is refused by name; other ids go to the real require', () => {
  assert.throws(
    () => evaluatePack(`require(${JSON.stringify(`${HOT_PREFIX}src/missing.ts`)})`, FILE, {}, require),
    /oc:src\/missing\.ts.*does not carry/,
  );
  const asked: string[] = [];
  const exported = evaluatePack('exports.p = require("node:path");', FILE, {}, (id) => {
    asked.push(id);
    return require(id);
  }) as Record<string, any>;
  assert.deepEqual(asked, ['node:path']);
  assert.equal(exported.p, require('node:path'));
});

test('the pack is named by its file in stack traces and sees its own __filename and __dirname', () => {
  const exported = evaluatePack('exports.where = [__filename, __dirname]; exports.fail = () => { throw new Error("boom"); };', FILE, {}, require) as Record<string, any>;
  assert.deepEqual(exported.where, [FILE, '/nowhere']);
  assert.throws(() => exported.fail(), (err: Error) => String(err.stack).includes(FILE));
});

test('a pack stored deflate-compressed as base64 comes back as the exact text, non-ASCII included', () => {
  const text = `exports.greeting = ${JSON.stringify('héllo → wörld')}; // ${'x'.repeat(10_000)}`;
  const stored = deflateRawSync(text, { level: 9 }).toString('base64');
  assert.ok(stored.length < text.length / 4);
  assert.equal(inflatePack(stored), text);
  assert.equal((evaluatePack(inflatePack(stored), FILE, {}, require) as Record<string, string>).greeting, 'héllo → wörld');
});

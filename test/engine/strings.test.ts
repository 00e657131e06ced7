import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REASONS } from '../../src/engine/index';

const ENGINE_DIR = join(__dirname, '..', '..', '..', 'src', 'engine');

test('no engine source string contains mojibake', () => {
  for (const file of readdirSync(ENGINE_DIR, { recursive: true }).map(String).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(join(ENGINE_DIR, file), 'utf8');
    assert.equal(text.includes('\u00e2\u20ac'), false, `${file} holds a double-encoded character`);
    assert.equal(text.includes('\ufffd\ufffd'), false, file);
  }
});

test('every reason code is snake_case and listed once', () => {
  assert.equal(new Set(REASONS).size, REASONS.length);
  for (const reason of REASONS) assert.match(reason, /^[a-z]+(_[a-z]+)*$/);
  // Written once: the list in reasons.ts is the only place a code is spelled; the type comes from it.
  const source = readFileSync(join(ENGINE_DIR, 'reasons.ts'), 'utf8');
  const spelled = [...source.matchAll(/^ {2}'([a-z_]+)',$/gm)].map((m) => m[1]);
  assert.deepEqual(spelled, [...REASONS]);
  assert.match(source, /export type Reason = \(typeof REASONS\)\[number\];/);
  const faults = readFileSync(join(ENGINE_DIR, '..', 'files', 'faults.ts'), 'utf8');
  assert.doesNotMatch(faults, /^ *\| '[a-z_]+'/m, 'files/faults.ts derives its codes from the one list');
});

test('isRefusal tells refusals from successes', async () => {
  const { isRefusal, refuse, succeed } = await import('../../src/engine/index');
  assert.equal(isRefusal(refuse('paused', 'x')), true);
  assert.equal(isRefusal(succeed('y')), false);
});

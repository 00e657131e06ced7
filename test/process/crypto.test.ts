import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { randomHex, sha256Hex } from '../../src/process/crypto';

test('randomHex hands out fresh lowercase hex of the asked length, across pool refills and for large requests', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 2_000; i++) {
    for (const bytes of [4, 8, 16, 12]) {
      const hex = randomHex(bytes);
      assert.match(hex, new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
      if (bytes >= 8) {
        assert.equal(seen.has(hex), false, 'no value is handed out twice');
        seen.add(hex);
      }
    }
  }
  const big = randomHex(4_096);
  assert.match(big, /^[0-9a-f]{8192}$/);
  assert.notEqual(big, randomHex(4_096));
});

test('sha256Hex is the sha256 of the UTF-8 text', () => {
  assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  const text = 'ünïcödé ✓ 😀 lone \ud800';
  assert.equal(sha256Hex(text), createHash('sha256').update(text, 'utf8').digest('hex'));
});

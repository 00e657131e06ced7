// The operator documentation stays in step with the code it describes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REASONS } from '../../../src/engine/reasons';
import { STORE_ACL_COMMANDS } from '../../../src/store/redis/keys';

const ROOT = join(__dirname, '..', '..', '..', '..');
const PROTOCOL = readFileSync(join(ROOT, 'PROTOCOL.md'), 'utf8');
const TOOLS_DOC = readFileSync(join(ROOT, 'docs', 'tools.md'), 'utf8');
const REDIS_DOC = readFileSync(join(ROOT, 'docs', 'redis.md'), 'utf8');

test('PROTOCOL.md gives operators exactly the ACL commands the store uses', () => {
  assert.ok(PROTOCOL.includes(STORE_ACL_COMMANDS), 'the ACL SETUSER line in PROTOCOL.md 9.6 lists other commands than STORE_ACL_COMMANDS');
});

test('PROTOCOL.md and docs/tools.md name every store reason code', () => {
  for (const reason of REASONS.filter((r) => r.startsWith('store_'))) {
    assert.ok(PROTOCOL.includes(`\`${reason}\``), `PROTOCOL.md lacks ${reason}`);
    assert.ok(TOOLS_DOC.includes(`\`${reason}\``), `docs/tools.md lacks ${reason}`);
  }
});

test('docs/redis.md sets up the ACL user with exactly the commands the store uses', () => {
  assert.ok(REDIS_DOC.includes(`ACL SETUSER oc-agent on resetkeys '~oc:{acme-web}:*' resetchannels '&oc:{acme-web}:*' ${STORE_ACL_COMMANDS}\n`), 'docs/redis.md lists other ACL commands than STORE_ACL_COMMANDS');
});

// docs/delivery.md's table of how mail reaches each host is the table the
// code uses (deliveryPaths, which the send reply reads): same hosts, same
// states, same paths and delays, row for row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deliveryPaths, PATH_HOSTS, TURN_STATES } from '../src/engine/arrival';

const ROOT = join(__dirname, '..', '..');

function docRows(): string[][] {
  const text = readFileSync(join(ROOT, 'docs', 'delivery.md'), 'utf8');
  const start = text.indexOf('<!-- delivery-paths:start -->');
  const end = text.indexOf('<!-- delivery-paths:end -->');
  assert.ok(start >= 0 && end > start, 'docs/delivery.md marks its table');
  return text.slice(start, end).split('\n')
    .filter((line) => line.startsWith('|') && !line.startsWith('|---') && !line.startsWith('| host |'))
    .map((line) => line.slice(1, -1).split(' | ').map((cell) => cell.trim()));
}

test('docs/delivery.md shows exactly the delivery paths the code uses', () => {
  const fromCode = PATH_HOSTS.flatMap((host) => TURN_STATES.map((state) => [host, state, deliveryPaths[host][state].path, deliveryPaths[host][state].delay]));
  assert.deepEqual(docRows(), fromCode);
});

test('every host has a path for every state', () => {
  for (const host of PATH_HOSTS) assert.deepEqual(Object.keys(deliveryPaths[host]).sort(), [...TURN_STATES].sort(), host);
});

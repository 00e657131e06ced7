// Runs every compiled *.test.js under build/test with node:test. (Node 20's
// `node --test <dir>` would also run helper modules and fixtures as tests.)
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(path));
    else if (entry.name.endsWith('.test.js')) found.push(path);
  }
  return found;
}

const files = findTests(process.argv[2] ?? 'build/test').sort();
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);

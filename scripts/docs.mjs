// Writes the generated parts of README.md (the tool table) from the compiled
// sources: run `npm run docs`, which compiles the tests first. test/docs.test.ts
// fails when README.md differs from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { withToolTable } = require(join(root, 'build', 'test', 'helpers', 'docs-tables.js'));
const path = join(root, 'README.md');
const before = readFileSync(path, 'utf8');
const after = withToolTable(before);
if (after === before) {
  console.log('README.md: the tool table is up to date');
} else {
  writeFileSync(path, after);
  console.log('README.md: wrote the tool table from src/tools/catalog.ts');
}

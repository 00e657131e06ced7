// Writes the generated parts of the docs from the compiled sources: run
// `npm run docs`, which compiles the tests first. README.md's tool table comes
// from the tools catalog and its delivery summary from the delivery table
// (deliveryPaths); in README.md and docs/*.md every marked restatement of a
// delivery fact (<!-- delivery:HOST-STATE -->) gets the table's words, and
// every <!-- needs:opencode-package --> block the statement of what OpenCode
// needs. test/docs.test.ts and test/delivery-table.test.ts fail when a page
// differs from what this writes.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { withToolTable } = require(join(root, 'build', 'test', 'helpers', 'docs-tables.js'));
const { withDeliverySummary, withFactBlocks, withPackageBlocks } = require(join(root, 'build', 'test', 'helpers', 'delivery-docs.js'));

const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
for (const page of pages) {
  const path = join(root, page);
  const before = readFileSync(path, 'utf8');
  let after = withPackageBlocks(withFactBlocks(before));
  if (page === 'README.md') after = withDeliverySummary(withToolTable(after));
  if (after === before) {
    console.log(`${page}: up to date`);
  } else {
    writeFileSync(path, after);
    console.log(`${page}: wrote the generated parts (tool table, delivery table, marked blocks)`);
  }
}

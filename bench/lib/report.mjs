// Small pieces several benchmarks share: quantiles, a plain-text table, and
// the bare fs.watch wake-up that the push benchmarks use as their floor.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** The q-quantile (0..1) of `values`, nearest rank. */
export function quantile(values, q) {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
}

/** Prints rows as aligned columns, the first row as the header. */
export function printTable(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  const line = (r) => r.map((cell, c) => String(cell).padEnd(widths[c])).join('  ').trimEnd();
  console.log(line(rows[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows.slice(1)) console.log(line(r));
}

/** One floor sample: write a temp file, rename it onto state.json, wait for a bare directory watch. */
export function floorSample(dir, index, withTimeout) {
  return withTimeout(new Promise((resolve) => {
    let start = 0;
    const watcher = fs.watch(dir, { persistent: false }, (_event, filename) => {
      if (String(filename) !== 'state.json' || start === 0) return;
      const elapsed = performance.now() - start;
      watcher.close();
      resolve(elapsed);
    });
    const temp = join(dir, `.state.${process.pid}.${index}.tmp`);
    start = performance.now();
    fs.writeFileSync(temp, `{"n":${index}}`);
    fs.renameSync(temp, join(dir, 'state.json'));
  }), 'the bare fs.watch floor');
}

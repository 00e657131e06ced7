// Bundles src/ into the one file we ship. Deterministic: same source and
// esbuild version give the same bytes, which scripts/check-dist.mjs relies on.
import { build } from 'esbuild';
import { chmodSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const bundles = [
  { entry: 'src/cli/main.ts', out: 'dist/opencomms.js', shebang: true },
  // OpenCode imports its plugins as ES modules.
  { entry: 'src/opencode/plugin-entry.ts', out: 'dist/opencode-plugin.js', format: 'esm' },
];

for (const b of bundles) {
  await build({
    absWorkingDir: root,
    entryPoints: [b.entry],
    outfile: b.out,
    bundle: true,
    platform: 'node',
    target: 'node18',
    format: b.format ?? 'cjs',
    sourcemap: 'linked',
    sourcesContent: true,
    legalComments: 'none',
    minify: true,
    banner: b.shebang ? { js: '#!/usr/bin/env node' } : undefined,
    define: { __OPENCOMMS_VERSION__: JSON.stringify(pkg.version) },
    logLevel: 'warning',
  });
  if (b.shebang) chmodSync(join(root, b.out), 0o755);
}

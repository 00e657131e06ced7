// Bundles src/ into the one file we ship. Deterministic: same source and
// esbuild version give the same bytes, which scripts/check-dist.mjs relies on.
//
// dist/opencomms.js holds a hot half and two packs. The hot half (argv, the
// transport, the MCP handshake) is ordinary code. Each pack is carried as one
// string and compiled on first use, so a start-up parses only what its first
// reply needs: the hook pack (src/hooks) serves `opencomms hook`; the cold pack
// (src/cli/cold.ts) holds the server's tools and every other command. A
// process loads one pack at most, so the packs may each bundle their own copy
// of the engine and the store. Modules the hot half holds are shared, never
// copied: a pack build marks them external as `oc:<path>`, and the hot bundle
// hands over its own instances of them (src/cli/pack-runtime.ts).
//
// dist/opencomms-<pack>.js (+ .map) is a pack's text as a plain file, for
// source maps and coverage only; it is not committed and nothing reads it.
import { build } from 'esbuild';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { deflateRawSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const HOT_ENTRY = 'src/cli/main.ts';
const DOOR = join(root, 'src/cli/packs.ts');
const PACK_RUNTIME = join(root, 'src/cli/pack-runtime.ts');
// `deflate`: carried deflate-compressed (base64). Every start-up reads and
// scans the whole file, so the big cold pack travels small and is inflated
// only when used; the hook pack stays plain text, because a hook runs on
// every prompt and loading zlib would cost it more than the bytes do.
const PACKS = [
  { name: 'cold', entry: 'src/cli/cold.ts', loader: 'loadColdPack', deflate: true },
  { name: 'hook', entry: 'src/hooks/index.ts', loader: 'loadHookPack', deflate: false },
];
const HOT_PREFIX = 'oc:';
const outOf = (pack) => `dist/opencomms-${pack.name}.js`;

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node18',
  legalComments: 'none',
  minify: true,
  define: { __OPENCOMMS_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
};

const toPosix = (p) => p.split(sep).join('/');
const srcPath = (abs) => toPosix(relative(root, abs));

/** Replaces src/cli/packs.ts in the hot build with `contents`. */
function door(contents) {
  return {
    name: 'pack-door',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]packs\.ts$/ }, (args) => (args.path === DOOR ? { contents, loader: 'js', resolveDir: dirname(DOOR) } : undefined));
    },
  };
}

/** Resolves a relative import of src/ the way esbuild would: file.ts, or dir/index.ts. */
function resolveSource(from, spec) {
  const base = resolve(from, spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) if (existsSync(candidate) && candidate.endsWith('.ts')) return candidate;
  return undefined;
}

/** Marks every import of a hot module as external `oc:<path>`. */
function shareHot(hot) {
  return {
    name: 'share-hot',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = resolveSource(args.resolveDir, args.path);
        if (target && hot.has(srcPath(target))) return { path: HOT_PREFIX + srcPath(target), external: true };
        return undefined;
      });
    },
  };
}

// Modules that put code in the output. One that tree-shaking emptied is not
// part of a half and may be bundled by the other.
const inputsOf = (result) => {
  const used = new Set();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) if (bytesInOutput > 0 && path.startsWith('src/')) used.add(path);
  }
  return used;
};

async function buildHot(contents, write) {
  return build({
    ...common,
    entryPoints: [HOT_ENTRY],
    outfile: 'dist/opencomms.js',
    format: 'cjs',
    sourcemap: write ? 'linked' : false,
    sourcesContent: true,
    banner: { js: '#!/usr/bin/env node' },
    plugins: [door(contents)],
    metafile: true,
    write,
  });
}

async function buildPack(pack, hot) {
  const result = await build({
    ...common,
    entryPoints: [pack.entry],
    outfile: outOf(pack),
    format: 'cjs',
    sourcemap: 'linked',
    sourcesContent: true,
    plugins: [shareHot(hot)],
    metafile: true,
  });
  const shared = new Set();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const imp of output.imports) if (imp.external && imp.path.startsWith(HOT_PREFIX)) shared.add(imp.path);
  }
  return { inputs: inputsOf(result), shared: [...shared].sort(), source: readFileSync(join(root, outOf(pack)), 'utf8') };
}

function doorContents(built) {
  const shared = [...new Set(built.flatMap((b) => b.shared))].sort();
  // Paths relative to src/cli: the source map carries this text, and must not depend on where the clone lives.
  const fromDoor = (abs) => { const rel = toPosix(relative(dirname(DOOR), abs)); return JSON.stringify(rel.startsWith('.') ? rel : `./${rel}`); };
  const lines = [`import { evaluatePack, inflatePack } from ${fromDoor(PACK_RUNTIME)};`];
  shared.forEach((id, i) => lines.push(`import * as m${i} from ${fromDoor(join(root, id.slice(HOT_PREFIX.length)))};`));
  lines.push('const hot = {', ...shared.map((id, i) => `  ${JSON.stringify(id)}: m${i},`), '};', 'let loaded;');
  lines.push(
    'function load(name, source) {',
    '  if (loaded && loaded.name !== name) throw new Error(`internal: the ${name} pack was asked for in a process that runs the ${loaded.name} pack`);',
    '  loaded ??= { name, exports: evaluatePack(source(), require("node:path").join(__dirname, `opencomms-${name}.js`), hot, require) };',
    '  return loaded.exports;',
    '}',
  );
  PACKS.forEach((pack, i) => {
    const text = pack.deflate
      ? `inflatePack(${JSON.stringify(deflateRawSync(built[i].source, { level: 9 }).toString('base64'))})`
      : JSON.stringify(built[i].source);
    lines.push(`export function ${pack.loader}() { return load(${JSON.stringify(pack.name)}, () => ${text}); }`);
  });
  return lines.join('\n');
}

// The hot half is what main.ts reaches without the packs. Sharing can pull
// more into it (a module a pack imports whole); repeat until stable.
const stub = PACKS.map((p) => `export function ${p.loader}() { throw new Error("unreachable"); }`).join('\n');
let hot = inputsOf(await buildHot(stub, false));
for (let round = 1; ; round++) {
  const built = [];
  for (const pack of PACKS) built.push(await buildPack(pack, hot));
  const grown = inputsOf(await buildHot(doorContents(built), false));
  if ([...grown].every((p) => hot.has(p))) {
    const twice = built.flatMap((b) => [...b.inputs].filter((p) => hot.has(p)));
    if (twice.length) throw new Error(`build: modules in the hot half and in a pack: ${twice.join(', ')}`);
    await buildHot(doorContents(built), true);
    break;
  }
  if (round > 5) throw new Error('build: the hot half did not settle');
  hot = new Set([...hot, ...grown]);
}
chmodSync(join(root, 'dist/opencomms.js'), 0o755);

// OpenCode imports its plugins as ES modules.
await build({
  ...common,
  entryPoints: ['src/opencode/plugin-entry.ts'],
  outfile: 'dist/opencode-plugin.js',
  format: 'esm',
  sourcemap: 'linked',
  sourcesContent: true,
});

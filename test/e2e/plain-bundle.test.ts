// dist/opencomms.js is meant to be read before it is trusted: one plain
// CommonJS file with a header that says what it is and how to rebuild it, no
// code carried as data and nothing compiled at run time. These tests read the
// shipped file as a reviewer (or a supply-chain scanner) would, and run
// scripts/check-dist.mjs, the build's gate, against planted faults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, runCli, tempProject, WAIT_MS } from '../helpers/server';
import { runToEnd } from '../helpers/run';

const ROOT = join(__dirname, '..', '..', '..');
const CHECK_DIST = join(ROOT, 'scripts', 'check-dist.mjs');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };
const MAX_LINE_CHARS = 2_000;

const bundle = (): string => readFileSync(DIST, 'utf8');
const count = (text: string, pattern: RegExp): number => [...text.matchAll(new RegExp(pattern.source, 'g'))].length;

/** The commit scripts/source-commit.mjs names for this checkout, as the build saw it. */
async function sourceCommitOf(dir: string): Promise<string> {
  const run = await runToEnd(process.execPath, [join(ROOT, 'scripts', 'source-commit.mjs'), dir], { waitMs: WAIT_MS });
  assert.equal(run.code, 0, run.stderr);
  return run.stdout.trim();
}

test('the shipped bundle compiles no code at run time: no eval(, new Function(, compileFunction or node:vm', () => {
  const text = bundle();
  assert.equal(count(text, /\beval\s*\(/), 0);
  assert.equal(count(text, /\bnew\s+Function\s*\(/), 0);
  assert.equal(count(text, /compileFunction/), 0);
  assert.equal(count(text, /require\(\s*["'](node:)?vm["']\s*\)/), 0);
  assert.equal(count(text, /\brunIn(This|New)?Context\b/), 0);
});

test('the shipped bundle carries no encoded blob: no run of 160 or more base64 characters', () => {
  assert.equal(count(bundle(), /[A-Za-z0-9+/]{160,}/), 0);
});

test(`no line of the shipped bundle is longer than ${MAX_LINE_CHARS} characters (it is not minified)`, () => {
  const longest = Math.max(...bundle().split('\n').map((line) => line.length));
  assert.ok(longest <= MAX_LINE_CHARS, `the longest line has ${longest} characters`);
});

test('the shipped bundle keeps module boundaries: each source module follows its path comment', () => {
  const text = bundle();
  for (const module of ['src/cli/main.ts', 'src/cli/serve.ts', 'src/engine/send.ts', 'src/store/file/lock.ts', 'src/tools/catalog.ts', 'src/hooks/index.ts', 'src/hosts/index.ts']) {
    assert.match(text, new RegExp(`^// ${module.replace(/\./g, '\\.')}$`, 'm'), module);
  }
});

test('the header names the product, version, license, source commit and the command that rebuilds the file', async () => {
  const header = bundle().split('\n').slice(0, 12).join('\n');
  assert.match(header, /^#!\/usr\/bin\/env node\n/);
  assert.match(header, new RegExp(`^// OpenComms ${PACKAGE.version.replace(/\./g, '\\.')}:`, 'm'));
  assert.match(header, new RegExp(`^// License: ${PACKAGE.license}\\b`, 'm'));
  const commit = await sourceCommitOf(ROOT);
  if (/^[0-9a-f]{40}$/.test(commit)) {
    assert.match(header, new RegExp(`^// Source commit: ${commit}$`, 'm'));
    assert.match(header, new RegExp(`^// Rebuild byte for byte: git checkout ${commit} && npm ci && npm run build$`, 'm'));
  } else {
    assert.match(header, /^\/\/ Source commit: (none|unknown)\b/m);
    assert.match(header, /^\/\/ Rebuild byte for byte: /m);
  }
});

test('--version prints the package version and the source commit of the build', async () => {
  const { code, stdout } = await runCli(['--version']);
  assert.equal(code, 0);
  assert.equal(stdout, `${PACKAGE.version} (source commit ${await sourceCommitOf(ROOT)})\n`);
});

test('dist/opencomms.js.sha256 holds the bundle\'s SHA-256 in the form sha256sum -c reads', () => {
  const digest = createHash('sha256').update(readFileSync(DIST)).digest('hex');
  assert.equal(readFileSync(`${DIST}.sha256`, 'utf8'), `${digest}  opencomms.js\n`);
});

test('modules only a command or a tool call needs run on first require, not at start-up', () => {
  // esbuild wraps a module that is require()d lazily in __esm: its top level
  // runs when the first require reaches it, never when the file loads.
  const text = bundle();
  for (const module of ['src/cli/serve-runtime.ts', 'src/tools/catalog.ts', 'src/store/file/store.ts', 'src/engine/index.ts', 'src/hooks/index.ts', 'src/hosts/index.ts', 'src/cli/doctor.ts', 'src/cli/watch.ts']) {
    assert.match(text, new RegExp(`__esm\\(\\{\\n\\s*"${module.replace(/\./g, '\\.')}"\\(\\)`), module);
  }
  for (const module of ['src/cli/serve.ts', 'src/transport/stdio.ts', 'src/mcp/server.ts']) {
    assert.doesNotMatch(text, new RegExp(`__esm\\(\\{\\n\\s*"${module.replace(/\./g, '\\.')}"\\(\\)`), `${module} is on the initialize path`);
  }
});

// ---- scripts/check-dist.mjs --scan: the gate itself ------------------------

function scan(file: string): ReturnType<typeof runToEnd> {
  return runToEnd(process.execPath, [CHECK_DIST, '--scan', file], { waitMs: WAIT_MS });
}

function plantedCopy(t: Parameters<typeof tempProject>[0], plant: (text: string) => string): string {
  const file = join(tempProject(t), 'opencomms.js');
  writeFileSync(file, plant(bundle()));
  return file;
}

test('check-dist passes the shipped bundle', async () => {
  const result = await scan(DIST);
  assert.equal(result.code, 0, result.stderr);
});

test('check-dist fails on a planted base64 blob and names its line', async (t) => {
  const blob = Buffer.from('x'.repeat(3_000)).toString('base64');
  const file = plantedCopy(t, (text) => text.replace('"use strict";\n', `"use strict";\nvar payload = "${blob}";\n`));
  const result = await scan(file);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /base64/);
  assert.match(result.stderr, /:\d+/);
});

const PLANTED_COMPILERS: [string, string][] = [
  ['eval', 'eval("1 + 1");'],
  ['new Function', 'new Function("return 1")();'],
  ['a node:vm require', 'require("node:vm");'],
  ["compileFunction", "({}).compileFunction;"],
];
for (const [what, planted] of PLANTED_COMPILERS) {
  test(`check-dist fails on planted run-time compilation: ${what}`, async (t) => {
    const file = plantedCopy(t, (text) => text.replace('"use strict";\n', `"use strict";\n${planted}\n`));
    const result = await scan(file);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /run-time compilation/);
  });
}

test('check-dist fails on a character past ASCII, which would make Node hold the file as a two-byte string, and names where', async (t) => {
  const file = plantedCopy(t, (text) => text.replace('"use strict";\n', '"use strict";\n// a comment with an ellipsis \u2026\n'));
  const result = await scan(file);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /a character past ASCII \(U\+2026\) at column 31/);
});

test('the shipped bundles are pure ASCII', () => {
  for (const name of ['opencomms.js', 'opencode-plugin.js']) {
    const bytes = readFileSync(join(DIST, '..', name));
    assert.equal(bytes.findIndex((b) => b > 0x7f), -1, `${name} has a byte past ASCII`);
  }
});

test('check-dist fails on a minified line and on a missing header', async (t) => {
  const long = plantedCopy(t, (text) => text.replace('"use strict";\n', `"use strict";\nvar a=${'1+'.repeat(MAX_LINE_CHARS)}1;\n`));
  const longResult = await scan(long);
  assert.equal(longResult.code, 1);
  assert.match(longResult.stderr, /characters/);
  const headless = plantedCopy(t, (text) => text.replace(/^\/\/ OpenComms .*\n/m, ''));
  const headlessResult = await scan(headless);
  assert.equal(headlessResult.code, 1);
  assert.match(headlessResult.stderr, /header/);
});

test('the shipped bundle keeps the source\'s names: no identifier the bundler renamed (channel2 for channel)', () => {
  const names = new Set<string>();
  for (const word of readFileSync(DIST, 'utf8').match(/[A-Za-z_$][\w$]*/g) ?? []) names.add(word);
  // Words of the bundle that src/ spells without their trailing digits, as esbuild renames a colliding name.
  for (const renamed of ['channel2', 'write2', 'log2', 'schema2', 'loaded2', 'main2']) assert.ok(!names.has(renamed), `${renamed} is in the bundle`);
});

test('check-dist fails on an identifier the bundler renamed and names it', async (t) => {
  const file = plantedCopy(t, (text) => text.replace('"use strict";\n', '"use strict";\nvar channel2 = 1;\n'));
  const result = await scan(file);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /renamed by the bundler.*channel2 \(1x\)/);
});

test('check-dist fails on a source-map link to a file the package does not ship', async (t) => {
  const file = plantedCopy(t, (text) => text.replace(/\/\/# sourceMappingURL=.*$/m, '//# sourceMappingURL=elsewhere.js.map'));
  const result = await scan(file);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /sourceMappingURL names elsewhere\.js\.map, which package\.json "files" does not ship/);
});

test('the header says where the commented source is, and the map it links to ships in the package', () => {
  const text = bundle();
  assert.match(text.split('\n').slice(0, 16).join('\n'), /^\/\/ The commented source: src\/ in the repository at the source commit, and opencomms\.js\.map/m);
  const link = /^\/\/# sourceMappingURL=(.*)$/m.exec(text)?.[1];
  assert.equal(link, 'opencomms.js.map');
  const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
  assert.ok(files.includes(`dist/${link}`));
  assert.doesNotMatch(readFileSync(join(DIST, '..', 'opencode-plugin.js'), 'utf8'), /sourceMappingURL/, 'install opencode copies the plugin alone: no link to dangle');
});

// The build's gate. Fails when a shipped file is not plain (run-time
// compilation, an encoded blob, a minified line, no header), or when the
// committed dist/ differs from the bundle that was just built: users curl
// dist/opencomms.js straight from the repository, so it must match src/.
//
//   node scripts/check-dist.mjs               both checks, on dist/ (npm test runs this after the build)
//   node scripts/check-dist.mjs --scan FILE   the plainness check on FILE only (tests plant faults in copies)
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_LINE_CHARS = 2_000;
// Longer than any identifier, hash or path the sources hold; an embedded
// payload (base64, or hex, which is a subset) is thousands of characters.
const MAX_BASE64_RUN = 160;

/** Ways to turn data into code at run time. A plain bundle needs none of them. */
const COMPILERS = [
  ['eval(', /\beval\s*\(/],
  ['new Function(', /\bnew\s+Function\s*\(/],
  ['Function("…")', /(?<![.\w])Function\s*\(\s*["'`]/],
  ['compileFunction', /\bcompileFunction\b/],
  ['a node:vm import', /\b(?:require|import)\s*\(\s*["'`](?:node:)?vm["'`]\s*\)|\bfrom\s+["'](?:node:)?vm["']/],
  ['runInContext', /\brunIn(?:This|New)?Context\b/],
  ['Module._compile', /\._compile\s*\(/],
  ['process.binding', /\bprocess\.binding\b/],
  ['WebAssembly', /\bWebAssembly\b/],
];

const IDENTIFIER = /(?<![\w$])[A-Za-z_$][\w$]*/g; // not the e3 of 1e3
// Names esbuild makes for its own module wrappers (import_node_path3, init_store2,
// require_x, __esm): they are not source names, and the header says how they read.
const BUNDLER_NAME = /^(?:import_|init_|require_|__)/;

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every identifier-like word of src/, with characters past ASCII escaped as the bundle writes them. */
export function sourceNames(srcDir) {
  const names = new Set();
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8').replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    for (const word of text.match(IDENTIFIER) ?? []) names.add(word);
  }
  return names;
}

/**
 * Identifiers the bundler renamed: `channel2` where src/ only says `channel`.
 * esbuild renames a name when two modules (or a module and a nested scope)
 * would share it in the one scope of the bundle; a reader then cannot grep the
 * bundle for the source's names. Returns [name, count] pairs, most used first.
 */
export function renamedIdentifiers(text, names) {
  const counts = new Map();
  for (const word of text.match(IDENTIFIER) ?? []) {
    if (names.has(word) || BUNDLER_NAME.test(word)) continue;
    const base = /^(.*[A-Za-z_$])\d+$/.exec(word)?.[1];
    if (base !== undefined && names.has(base)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** Problems that make `text` other than a plain bundle, one line each. */
export function plainnessProblems(text, name, { header, names, shipped }) {
  const problems = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const at = `${name}:${i + 1}`;
    if (line.length > MAX_LINE_CHARS) problems.push(`${at}: a line of ${line.length} characters (more than ${MAX_LINE_CHARS}): minified code has no place here`);
    for (const [what, pattern] of COMPILERS) if (pattern.test(line)) problems.push(`${at}: run-time compilation (${what})`);
    const run = line.match(new RegExp(`[A-Za-z0-9+/]{${MAX_BASE64_RUN},}={0,2}`));
    if (run) problems.push(`${at}: an encoded blob (a base64 run of ${run[0].length} characters)`);
    const escapes = line.match(/(?:\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}){40,}/);
    if (escapes) problems.push(`${at}: an encoded blob (${escapes[0].length} characters of escapes)`);
    // One character past ASCII (a comment's ellipsis will do) makes Node hold the whole file as a
    // two-byte string: about twice the time to decode it at every start, and more to scan it.
    const wide = line.match(/[^\x00-\x7f]/);
    if (wide) problems.push(`${at}: a character past ASCII (U+${wide[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}) at column ${wide.index + 1}: write it as ASCII (esbuild escapes strings; comments stay as written)`);
  });
  if (names) {
    const renamed = renamedIdentifiers(text, names);
    if (renamed.length) {
      const total = renamed.reduce((sum, [, n]) => sum + n, 0);
      const shown = renamed.slice(0, 12).map(([word, n]) => `${word} (${n}x)`).join(', ');
      problems.push(`${name}: ${renamed.length} identifiers renamed by the bundler, ${total} uses: ${shown}${renamed.length > 12 ? ', ...' : ''}. Give the module-level name that collides a name of its own (CHANNEL_ARG, logLine), so the bundle keeps the source's names`);
    }
  }
  const mapLink = /^\/\/# sourceMappingURL=(.*)$/m.exec(text)?.[1];
  if (mapLink !== undefined && shipped && !shipped.includes(`dist/${mapLink}`)) {
    problems.push(`${name}: its sourceMappingURL names ${mapLink}, which package.json "files" does not ship: the link would dangle`);
  }
  if (header) {
    const top = lines.slice(0, 16).join('\n');
    for (const [what, pattern] of [
      ['the shebang', /^#!\/usr\/bin\/env node$/m],
      ['the product and version', /^\/\/ OpenComms \d+\.\d+\.\d+\S*: /m],
      ['the license', /^\/\/ License: \S+/m],
      ['the source commit', /^\/\/ Source commit: /m],
      ['the rebuild command', /^\/\/ Rebuild byte for byte: /m],
      ['where the commented source is', /^\/\/ The commented source: /m],
    ]) if (!pattern.test(top)) problems.push(`${name}: the header lacks ${what}`);
  }
  return problems;
}

function scan(files) {
  const names = sourceNames(join(root, 'src'));
  const shipped = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).files;
  const problems = files.flatMap(({ path, header, keepsNames }) => plainnessProblems(readFileSync(path, 'utf8'), path, { header, names: keepsNames ? names : undefined, shipped }));
  if (problems.length) {
    console.error(`check-dist: not a plain bundle:\n  ${problems.slice(0, 20).join('\n  ')}${problems.length > 20 ? `\n  … and ${problems.length - 20} more` : ''}`);
    process.exit(1);
  }
}

const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

if (process.argv[2] === '--scan') {
  if (!process.argv[3]) {
    console.error('usage: node scripts/check-dist.mjs --scan FILE');
    process.exit(2);
  }
  scan([{ path: process.argv[3], header: true, keepsNames: true }]);
  console.log(`check-dist: ${process.argv[3]} is a plain bundle`);
  process.exit(0);
}

scan([
  { path: join(root, 'dist/opencomms.js'), header: true, keepsNames: true },
  { path: join(root, 'dist/opencode-plugin.js'), header: false },
]);

let inRepo = true;
try {
  git('rev-parse', '--is-inside-work-tree');
} catch {
  inRepo = false;
}
if (!inRepo) {
  console.log('check-dist: dist/ is plain; not a git checkout, so the comparison with the committed dist/ is skipped');
  process.exit(0);
}
let status = git('status', '--porcelain', '--', 'dist');
const headerOf = (text) => text.split('\n').slice(0, 12).join('\n');
let committed = '';
try {
  committed = headerOf(git('show', 'HEAD:dist/opencomms.js'));
} catch {
  // not committed yet: the status says so
}
const fresh = headerOf(readFileSync(join(root, 'dist/opencomms.js'), 'utf8'));
const namedCommit = /^\/\/ Source commit: ([0-9a-f]{40})$/m.exec(committed)?.[1];
const isShallow = () => git('rev-parse', '--is-shallow-repository').trim() === 'true';
if (status.trim() !== '' && /^\/\/ Source commit: unknown/m.test(fresh) && namedCommit && isShallow()) {
  // A shallow clone cannot name the source commit. Build again with the one
  // the committed bundle names, and compare every other byte.
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), `--assume-commit=${namedCommit}`], { cwd: root, stdio: 'inherit' });
  status = git('status', '--porcelain', '--', 'dist');
  if (status.trim() === '') {
    console.log(`check-dist: dist/ is plain and matches a fresh build; its source commit (${namedCommit}) is not in this shallow clone, so that line was taken as committed`);
    process.exit(0);
  }
}
if (status.trim() !== '') {
  console.error('check-dist: dist/ differs from the committed bundle. Run `npm run build` and commit dist/.');
  console.error(status);
  if (/^\/\/ Source commit: none/m.test(fresh)) {
    console.error('The sources have uncommitted changes, and a bundle names the commit it was built from: commit the');
    console.error('sources first, then run npm run build and commit dist/ in a commit of its own.');
  } else if (/^\/\/ Source commit: none/m.test(committed)) {
    console.error('The committed bundle was built before its sources were committed. Its header names the last commit that');
    console.error('changed the sources, so commit the sources first, then build and commit dist/ in a commit of its own.');
  }
  process.exit(1);
}
console.log('check-dist: dist/ is plain and matches a fresh build');

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

test('the engine mentions no node: module, clock, randomness or process', () => {
  const files = sourceFiles(join(ROOT, 'src', 'engine'));
  assert.ok(files.length > 0);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const banned of ['node:', 'Date.now', 'Math.random', 'process.']) {
      assert.equal(text.includes(banned), false, `${relative(ROOT, file)} mentions ${banned}`);
    }
  }
});

test('the engine imports nothing outside itself', () => {
  const engineDir = join(ROOT, 'src', 'engine');
  for (const file of sourceFiles(engineDir)) {
    for (const match of readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'/g)) {
      assert.match(match[1]!, /^\.\.?\/[a-z0-9/.-]+$/, `${relative(ROOT, file)} imports ${match[1]}`);
      assert.ok(join(file, '..', match[1]!).startsWith(engineDir + '/'), `${relative(ROOT, file)} imports ${match[1]}, outside the engine`);
    }
  }
});

test('the store imports nothing from tools or mcp', () => {
  for (const file of sourceFiles(join(ROOT, 'src', 'store'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:from\s+|require\()\s*'([^']+)'/g)) {
      assert.doesNotMatch(match[1]!, /(^|\/)(tools|mcp)(\/|$)/, `${relative(ROOT, file)} imports ${match[1]}`);
    }
  }
});

/** Every relative import of a source file: `from '…'`, `require('…')` and `import('…')`, type-only ones included. */
function relativeImports(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s+|\brequire\(\s*|\bimport\(\s*)'(\.[^']*)'/g)].map((m) => m[1]!);
}

/** The source file a relative import names: `<path>.ts`, or `<path>/index.ts`; undefined when neither exists. */
function resolveImport(fromFile: string, spec: string): string | undefined {
  const base = join(fromFile, '..', spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return undefined;
}

const SRC = join(ROOT, 'src');
const STORE_DIR = join(SRC, 'store');
const STORE_DOOR = join(STORE_DIR, 'index.ts');
const isInStore = (file: string): boolean => file.startsWith(STORE_DIR + '/');

test('outside src/store, nothing branches on which store it has: no store.kind, selection.kind or isRedisStore', () => {
  // `store.kind`, `this.store.kind`, `options.selection?.kind`, `storeSelection.kind`, and reaching into a
  // Redis selection's config (`selection.config.projectId`), which only a branch on its kind can do.
  const branch = /\bisRedisStore\b|\b\w*(?:store|selection)\w*\)?\??\.kind\b|\bselection\)?\??\.config\b/gi;
  for (const file of sourceFiles(SRC).filter((f) => !isInStore(f))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const found = line.match(branch);
      assert.equal(found, null, `${relative(ROOT, file)}:${i + 1} branches on the store kind (${found?.join(', ')}): ask the store (src/store/contract.ts) instead`);
    });
  }
});

const COPY_DOOR = join(STORE_DIR, 'copy', 'index.ts');
const MAX_DOOR_NAMES = 30;

/**
 * What breaks the store's walls in the tree under `src`: an import of the
 * store from outside it that does not go through a door, an import between
 * store/file and store/redis, and an import of the store from files/ or
 * local/. One line per problem.
 */
function storeWallProblems(src: string): string[] {
  const store = join(src, 'store');
  const doors = [join(store, 'index.ts'), join(store, 'copy', 'index.ts')];
  const inside = (file: string, dir: string): boolean => file.startsWith(dir + '/');
  const problems: string[] = [];
  for (const file of sourceFiles(src)) {
    for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
      const target = resolveImport(file, spec);
      if (target === undefined) continue;
      const where = `${relative(src, file)} imports ${spec}`;
      if (!inside(file, store) && inside(target, store) && !doors.includes(target)) problems.push(`${where}: import it from the store's door, src/store/index.ts`);
      for (const [from, to] of [['file', 'redis'], ['redis', 'file']] as const) {
        if (inside(file, join(store, from)) && inside(target, join(store, to))) problems.push(`${where}: store/${from} and store/${to} never import each other`);
      }
      for (const low of ['files', 'local']) {
        if (inside(file, join(src, low)) && inside(target, store)) problems.push(`${where}: src/${low}/ never imports the store`);
      }
    }
  }
  return problems.sort();
}

/** The names a door module exports: every name of its `export { … }` lines and its own exported declarations. */
function doorNames(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const listed = [...text.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) => m[1]!.split(',').map((n) => n.trim().split(/\s+as\s+/).pop()!).filter(Boolean));
  const declared = [...text.matchAll(/^export (?:async )?(?:function|const|class|interface|type|enum) ([A-Za-z0-9_]+)/gm)].map((m) => m[1]!);
  return [...listed, ...declared];
}

test('outside src/store, the store is imported only through its doors; store/file and store/redis never import each other; files/ and local/ never import the store', () => {
  assert.deepEqual(storeWallProblems(SRC), []);
  assert.ok(existsSync(COPY_DOOR));
});

test('the store\'s door exports at most 30 names', () => {
  const names = doorNames(STORE_DOOR);
  assert.ok(names.length <= MAX_DOOR_NAMES, `src/store/index.ts exports ${names.length} names (${names.join(', ')}); at most ${MAX_DOOR_NAMES}`);
});

test('the wall checks find a planted store/file <-> store/redis import, a planted deep import, an import of the store from local/, and a 31-name door', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'oc-walls-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const src = join(root, 'src');
  const plant = (path: string, text: string): void => {
    mkdirSync(join(src, path, '..'), { recursive: true });
    writeFileSync(join(src, path), text);
  };
  plant('store/index.ts', "export { a } from './file/a';\n");
  plant('store/copy/index.ts', "export { b } from '../redis/b';\n");
  plant('store/file/a.ts', "import { b } from '../redis/b';\nexport const a = b;\n");
  plant('store/redis/b.ts', 'export const b = 1;\n');
  plant('cli/deep.ts', "import { a } from '../store/file/a';\nimport { a as viaDoor } from '../store';\nexport const c = [a, viaDoor];\n");
  plant('local/pin.ts', "import { a } from '../store';\nexport const p = a;\n");
  assert.deepEqual(storeWallProblems(src), [
    "cli/deep.ts imports ../store/file/a: import it from the store's door, src/store/index.ts",
    'local/pin.ts imports ../store: src/local/ never imports the store',
    'store/file/a.ts imports ../redis/b: store/file and store/redis never import each other',
  ]);
  plant('store/index.ts', `export { ${Array.from({ length: 31 }, (_, i) => `n${i}`).join(', ')} } from './file/a';\n`);
  assert.equal(doorNames(join(src, 'store', 'index.ts')).length, 31);
});

test('outside src/store, the state changes only by name: no code of src hands the store a function (editLocally is for tests)', () => {
  for (const file of sourceFiles(SRC).filter((f) => !isInStore(f))) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      assert.doesNotMatch(line, /\.editLocally\(|\.mutate\(\s*(?:async\s*)?(?:\(|function\b|[A-Za-z_$][\w$]*\s*=>)/,
        `${relative(ROOT, file)}:${i + 1} hands the store a function: name an engine change (src/engine/changes/) instead`);
    });
  }
});

test('no import circle anywhere in src', () => {
  const files = sourceFiles(SRC);
  const edges = new Map(files.map((file) => [
    file,
    relativeImports(readFileSync(file, 'utf8')).map((spec) => resolveImport(file, spec)).filter((t): t is string => t !== undefined),
  ]));
  assert.equal(edges.size, files.length);
  // Depth-first search; a path that reaches a file still on the stack closes a circle.
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const circle = [...stack.slice(stack.indexOf(next)), next].map((f) => relative(ROOT, f));
        assert.fail(`import circle: ${circle.join(' -> ')}`);
      }
      if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...files].sort()) if (state.get(file) === undefined) visit(file);
});

/** The rooms ARCHITECTURE.md lists: `| \`src/<room>/\` | <floor> | … |`. */
function documentedRooms(): Map<string, number> {
  const text = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  return new Map([...text.matchAll(/^\| `src\/([a-z]+)\/` \| (\d+) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
}

test('ARCHITECTURE.md lists every folder of src once, and says how many there are', () => {
  const rooms = documentedRooms();
  const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory()).sort();
  assert.deepEqual([...rooms.keys()].sort(), folders);
  const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen'];
  assert.match(readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8'), new RegExp(`one program in ${words[folders.length]} folders`));
});

test('every import between rooms goes to a lower floor, as ARCHITECTURE.md draws them', () => {
  const rooms = documentedRooms();
  const roomOf = (file: string): string => relative(SRC, file).split('/')[0]!;
  for (const file of sourceFiles(SRC)) {
    const from = roomOf(file);
    for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
      const target = resolveImport(file, spec);
      if (target === undefined || roomOf(target) === from) continue;
      const to = roomOf(target);
      assert.ok(rooms.get(to)! < rooms.get(from)!,
        `${relative(ROOT, file)} imports ${spec}: src/${from}/ is on floor ${rooms.get(from)} and src/${to}/ on floor ${rooms.get(to)}; imports go only down (ARCHITECTURE.md)`);
    }
  }
});

const MAX_SOURCE_LINES = 400;
const MAX_SOURCE_BYTES = 16_384;

/** Why a file is too big for one concept (its lines or its bytes), or undefined when it is within both limits. */
function sizeProblem(file: string): string | undefined {
  const bytes = readFileSync(file);
  const text = bytes.toString('utf8');
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_SOURCE_LINES) return `${lines} lines (at most ${MAX_SOURCE_LINES})`;
  if (bytes.length > MAX_SOURCE_BYTES) return `${bytes.length} bytes (at most ${MAX_SOURCE_BYTES})`;
  return undefined;
}

test('no source file is over 400 lines or 16 KB', () => {
  const tooBig = sourceFiles(SRC)
    .map((file) => ({ name: relative(ROOT, file), problem: sizeProblem(file) }))
    .filter((f) => f.problem !== undefined)
    .map((f) => `${f.name}: ${f.problem}`);
  assert.deepEqual(tooBig, [], 'a file this big holds two concepts: move one out along its seam (STYLE.md), not by packing lines');
});

test('the size check passes 400 lines and 16,384 bytes, and refuses a 401-line file and a 17 KB file', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-size-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const plant = (name: string, text: string): string => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  assert.equal(sizeProblem(plant('lines-400.ts', 'x;\n'.repeat(400))), undefined);
  assert.match(sizeProblem(plant('lines-401.ts', 'x;\n'.repeat(401))) ?? '', /^401 lines/);
  assert.match(sizeProblem(plant('lines-401-no-end.ts', `${'x;\n'.repeat(400)}x;`)) ?? '', /^401 lines/);
  const line = `${'/'.repeat(63)}\n`; // 64 bytes
  assert.equal(sizeProblem(plant('bytes-16384.ts', line.repeat(256))), undefined);
  assert.match(sizeProblem(plant('bytes-16385.ts', `${line.repeat(256)}x`)) ?? '', /^16385 bytes/);
  assert.match(sizeProblem(plant('bytes-17k.ts', `${'/'.repeat(17_407)}\n`)) ?? '', /^17408 bytes/);
});

// The docs name what the code does: the reason codes PROTOCOL lists, the
// sections that messages of the program point people to, the tool table and
// the counts the README states (computed here from the source, never typed
// into the test), and every relative link between the documents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REASONS } from '../src/engine/reasons';
import { composeBell } from '../src/delivery/doorbell';
import { mintMemberId } from '../src/cli/pin';
import { createEngineCtx } from '../src/store/ctx';
import type { Channel, Envelope, HistoryView } from '../src/engine/types';
import { catalogTools, generatedToolBlock, renderToolTable } from './helpers/docs-tables';
import { runCliInProcess } from './helpers/cli-in-process';
import { runCli } from './helpers/server';
import { OPENCODE_NEEDS, packageBlocks, renderOpencodeNeeds, sameWords, type OpencodeNeeds } from './helpers/delivery-docs';
import { FakeClient } from './opencode/helpers';
import { HOST_NAMES } from '../src/hosts/launch';
import {
  DEFAULT_TASK_PRIORITY, HOLDER_AWAY_GRACE_MS, MAX_OPEN_TASKS, MAX_TASK_AFTER, MAX_TASK_DETAILS_CHARS, MAX_TASK_DIGEST_CHARS, MAX_TASK_PRIORITY,
  MAX_TASK_TITLE_CHARS, TASK_RETENTION_MS,
} from '../src/engine';

const ROOT = join(__dirname, '..', '..');
const read = (name: string): string => readFileSync(join(ROOT, name), 'utf8');
const README_MAX_LINES = 300;
const PROTOCOL_MAX_WORDS = 8_000;

/** README.md, PROTOCOL.md, CONTRIBUTING.md and every docs/*.md, as paths from the root. */
function documents(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
  return ['README.md', 'PROTOCOL.md', 'CONTRIBUTING.md', ...docs];
}

/** The text outside fenced code blocks (links and headings in examples are not links or headings). */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');
}

/** GitHub's anchors for the headings of a markdown text. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const base = m[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const numberOf = (word: string): number => (/^\d+$/.test(word) ? Number(word) : NUMBER_WORDS.indexOf(word.toLowerCase()));

test('PROTOCOL 3.4 lists exactly the reason codes the code defines', () => {
  const protocol = read('PROTOCOL.md');
  const section = protocol.slice(protocol.indexOf('### 3.4 Reason codes'), protocol.indexOf('Some refusals carry extra fields'));
  const codes = new Set([...section.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));
  assert.deepEqual([...codes].sort(), [...REASONS].sort());
});

test('every document section the program names in its messages exists', () => {
  // `README "Heading"`, `README section "Heading"`, `docs/x.md ("Heading")` or `docs/x.md "Heading"`.
  const named: Array<{ file: string; section: string }> = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/\b(README|docs\/[a-z-]+\.md) (?:section )?\(?"([^"]+)"/g)) {
          named.push({ file: m[1] === 'README' ? 'README.md' : m[1]!, section: m[2]! });
        }
      }
    }
  };
  walk(join(ROOT, 'src'));
  assert.ok(named.some((n) => n.file === 'README.md'), 'the server\'s start-up hint names a README section');
  for (const { file, section } of named) {
    const headings = new Set([...prose(read(file)).matchAll(/^#{1,4} (.+)$/gm)].map((m) => m[1]!.trim()));
    assert.ok(headings.has(section), `${file} has no section "${section}"`);
  }
});

test('the mail notices quoted in the docs and PROTOCOL are the ones the code composes, "it" for one message', () => {
  const watchDoc = read('docs/watch.md');
  const pushDoc = read('docs/push.md');
  const protocol = read('PROTOCOL.md');
  const channel = { id: 'ch_1', name: 'review' } as unknown as Channel;
  const mail = (id: string): Envelope => ({ message_id: id, channel_id: 'ch_1', sender_role: 'reviewer', sender_session_id: 'sess_cf8fa904ea75129fdf824da3' }) as unknown as Envelope;
  const channels = new Map([['ch_1', channel]]);
  const one = composeBell([mail('m1')], channels, 1).content;
  const two = composeBell([mail('m1'), mail('m2')], channels, 1).content;
  assert.match(one, /read it;/);
  assert.match(two, /read them;/);
  assert.ok(pushDoc.includes(one), `docs/push.md quotes the one-message bell as the code writes it: ${one}`);
  assert.ok(watchDoc.includes(one), `docs/watch.md quotes the one-message bell as the code writes it: ${one}`);
  assert.ok(watchDoc.includes(two), `docs/watch.md quotes the two-message bell as the code writes it: ${two}`);
  assert.ok(protocol.includes(two), 'PROTOCOL quotes the two-message bell as the code writes it');
  for (const name of documents()) {
    for (const line of read(name).split('\n')) {
      if (/\b1 OpenComms message waits|\b1 new message waiting/.test(line)) assert.doesNotMatch(line, /read them/, `${name}: ${line}`);
    }
  }
});

test(`README.md stays a five-minute read: at most ${README_MAX_LINES} lines`, () => {
  const lines = read('README.md').split('\n').length;
  assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move detail to docs/`);
});

test(`PROTOCOL.md stays a thirty-minute read: at most ${PROTOCOL_MAX_WORDS} words`, () => {
  // Words as `wc -w` counts them: runs of characters between whitespace.
  const words = read('PROTOCOL.md').split(/\s+/).filter((word) => word !== '').length;
  assert.ok(words <= PROTOCOL_MAX_WORDS, `PROTOCOL.md has ${words} words, over the limit of ${PROTOCOL_MAX_WORDS}; move how-it-works prose to docs/internals.md`);
});

test('the README tool table is the catalog, one line per tool in tools/list order (npm run docs writes it)', () => {
  const block = generatedToolBlock(read('README.md'));
  assert.ok(block !== undefined, 'README.md has the generated tool table markers');
  assert.equal(block, renderToolTable(), 'README.md\'s tool table differs from src/tools/catalog.ts: run npm run docs');
  const names = [...block.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!);
  assert.deepEqual(names, catalogTools().map((t) => t.name));
});

test('every "N tools" the documents state is the number the catalog has', () => {
  const count = catalogTools().length;
  let stated = 0;
  for (const name of documents()) {
    for (const m of prose(read(name)).matchAll(/\b(\d+|[a-z]+) (?:OpenComms |MCP )?tools\b/gi)) {
      const n = numberOf(m[1]!);
      if (n < 0) continue;
      stated += 1;
      assert.equal(n, count, `${name} says "${m[0]}"; the catalog has ${count}`);
    }
  }
  assert.ok(stated > 0, 'PROTOCOL states how many tools there are');
});

test('the hook counts and names the docs state are the ones install writes', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'oc-docs-hooks-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const env = { HOME: join(base, 'home'), OPENCOMMS_COMPILE_CACHE: '0' };
  const eventsOf = (file: string): string[] => Object.keys((JSON.parse(readFileSync(file, 'utf8')) as { hooks: object }).hooks);
  const installed = async (host: string, file: string, plugin = false): Promise<string[]> => {
    const dir = join(base, `${host}${plugin ? '-plugin' : ''}`);
    mkdirSync(dir);
    const done = await runCliInProcess(['install', host, '--project', dir, ...(plugin ? ['--plugin'] : [])], { env });
    assert.equal(done.code, 0, done.stderr);
    return eventsOf(join(dir, file));
  };
  const hooks = {
    'claude-code': await installed('claude-code', '.claude/settings.json'),
    codex: await installed('codex', '.codex/hooks.json'),
    'gemini-cli': await installed('gemini-cli', '.gemini/settings.json'),
  };
  const plugin = await installed('claude-code', '.opencomms/claude-plugin/hooks/hooks.json', true);
  assert.deepEqual(plugin, hooks['claude-code'], 'premise: the plugin registers the plain install\'s hooks');

  const readme = prose(read('README.md'));
  const claim = /Claude Code gets (\w+) hooks \(([^)]+)\),\s+Codex (\w+) and Gemini CLI (\w+)/.exec(readme);
  assert.ok(claim, 'README says how many hooks each host gets');
  assert.equal(numberOf(claim[1]!), hooks['claude-code'].length);
  assert.deepEqual(claim[2]!.split(/,\s*/), hooks['claude-code']);
  assert.equal(numberOf(claim[3]!), hooks.codex.length);
  assert.equal(numberOf(claim[4]!), hooks['gemini-cli'].length);

  const hostsDoc = prose(read('docs/hosts.md'));
  for (const [host, events] of Object.entries(hooks)) {
    const row = new RegExp(`^\\| \`${host}\` \\|[^|]*\\|([^|]*)\\|`, 'm').exec(hostsDoc);
    assert.ok(row, `docs/hosts.md has a row for ${host}`);
    const named = [...row[1]!.replace(/`[^`]*`/g, '').matchAll(/\b[A-Z][a-zA-Z]+\b/g)].map((m) => m[0]);
    assert.deepEqual(new Set(named), new Set(events), `docs/hosts.md names other hooks for ${host}`);
  }
  const same = /\| `claude-code --plugin` \|[^|]*\| the same (\w+)/.exec(hostsDoc);
  assert.ok(same, 'docs/hosts.md says the plugin has the plain install\'s hooks');
  assert.equal(numberOf(same[1]!), plugin.length);
});

test('the id lengths the README and docs state are the ones the code mints', () => {
  const hexOf = (id: string, prefix: string): number => {
    assert.ok(id.startsWith(prefix), id);
    const hex = id.slice(prefix.length);
    assert.match(hex, /^[0-9a-f]+$/);
    return hex.length;
  };
  const pinned = hexOf(mintMemberId(), 'sess_');
  const minted = hexOf(createEngineCtx(() => 0, {} as HistoryView).newId('sess_'), 'sess_');
  const sentence = /`pin` mints `sess_` and (\d+) hex digits; a member minted for a host session is `sess_` and (\d+)/;
  const claim = sentence.exec(read('README.md'));
  assert.ok(claim, 'README states the id lengths');
  assert.deepEqual([Number(claim[1]), Number(claim[2])], [pinned, minted]);
  const commands = /\(`sess_` and (\d+) hex digits; a member minted for a host session is `sess_` and (\d+)\)/.exec(read('docs/commands.md'));
  assert.ok(commands, 'docs/commands.md states the id lengths');
  assert.deepEqual([Number(commands[1]), Number(commands[2])], [pinned, minted]);
  let spelled = 0;
  for (const name of documents()) {
    for (const m of prose(read(name)).matchAll(/`(chn|ocm|rsv|cor|sess)_` \+ (\d+) hex/g)) {
      spelled += 1;
      assert.equal(Number(m[2]), hexOf(createEngineCtx(() => 0, {} as HistoryView).newId(`${m[1]}_` as 'chn_'), `${m[1]}_`), `${name}: ${m[0]}`);
    }
  }
  assert.ok(spelled >= 5, `PROTOCOL spells out the id formats (found ${spelled})`);
});

test('every relative link in README, PROTOCOL, CONTRIBUTING and docs/ resolves, #anchor included', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const name of documents()) {
    const text = prose(read(name)).replace(/`[^`\n]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      checked += 1;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? join(ROOT, name) : resolve(dirname(join(ROOT, name)), path);
      if (!file.startsWith(ROOT) || !existsSync(file)) {
        broken.push(`${name}: ${target} (no ${relative(ROOT, file)})`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${name}: ${target} (no heading #${anchor} in ${relative(ROOT, file)})`);
      }
    }
  }
  assert.ok(checked > 50, `only ${checked} links found`);
  assert.deepEqual(broken, []);
});

test('the board\'s limits docs/board.md and README state are the ones the engine enforces', () => {
  const board = read('docs/board.md');
  const number = (text: string): number => Number(text.replace(/,/g, ''));
  assert.equal(number(/`title` \| one line, at most ([\d,]+) characters/.exec(board)![1]!), MAX_TASK_TITLE_CHARS);
  assert.equal(number(/`details` \| optional, at most ([\d,]+) characters/.exec(board)![1]!), MAX_TASK_DETAILS_CHARS);
  assert.equal(number(/0 \(most urgent\) to (\d); (\d) when not given/.exec(board)![1]!), MAX_TASK_PRIORITY);
  assert.equal(number(/0 \(most urgent\) to (\d); (\d) when not given/.exec(board)![2]!), DEFAULT_TASK_PRIORITY);
  assert.equal(number(/it waits on, at most (\d+);/.exec(board)![1]!), MAX_TASK_AFTER);
  assert.equal(number(/At most (\d+) tasks may be neither/.exec(board)![1]!), MAX_OPEN_TASKS);
  assert.equal(number(/or (\d+) minutes after the claimer's session went/.exec(board)![1]!) * 60_000, HOLDER_AWAY_GRACE_MS);
  assert.equal(number(/reminded of them in at most (\d+) characters/.exec(board)![1]!), MAX_TASK_DIGEST_CHARS);
  assert.equal(number(/done or cancelled (\d+) days ago leaves the board/.exec(board)![1]!) * 24 * 3600_000, TASK_RETENTION_MS);
  assert.match(read('README.md'), new RegExp(`ends ${HOLDER_AWAY_GRACE_MS / 60_000} minutes\\s+after it went away`));
});

test('no document or package.json points at a registry package or a repository address that is not ours', () => {
  // Nothing is published under the name: `npx opencomms` would run whoever claimed it.
  // `npx ./opencomms-<version>.tgz` (a packed file) is fine.
  const bareNpx = /\bnpx\s+(?:-\S+\s+)*opencomms\b/;
  const invented = /github\.com\/opencomms\/|raw\.githubusercontent\.com|<owner>/i;
  const files = ['README.md', 'PROTOCOL.md', 'CONTRIBUTING.md', ...documents().filter((f) => f.startsWith('docs/')), 'package.json'];
  const found = files.flatMap((file) => {
    const text = read(file);
    return [bareNpx, invented].filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${String(pattern)}`);
  });
  assert.deepEqual(found, []);
  assert.equal((JSON.parse(read('package.json')) as { repository?: unknown }).repository, undefined, 'package.json names no repository until there is one');
});

/** Every file under `dir`, as paths relative to it with `/` between folders. */
function filesUnder(dir: string, at = ''): string[] {
  if (!existsSync(join(dir, at))) return [];
  return readdirSync(join(dir, at), { withFileTypes: true }).flatMap((entry) => {
    const path = at === '' ? entry.name : `${at}/${entry.name}`;
    return entry.isDirectory() ? filesUnder(dir, path) : [path];
  });
}

/** What every install writes besides the host's own files (hosts.md says so under the table). */
const COMMON_FILES = new Set(['.opencomms/opencomms.js', '.opencomms/package.json', '.opencomms/install-record.json']);

test('the files docs/hosts.md says each host gets are exactly the files `install` writes for it', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'oc-docs-files-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const hostsDoc = read('docs/hosts.md');
  const table = hostsDoc.slice(hostsDoc.indexOf('<!-- host-files:start'), hostsDoc.indexOf('<!-- host-files:end -->'));
  assert.ok(table.length > 0, 'docs/hosts.md marks its table of what each host gets');
  const rows = table.split('\n').filter((line) => line.startsWith('| `'));
  const told = new Map<string, string[]>();
  for (const row of rows) {
    const [who, files] = row.slice(1, -1).split(' | ') as [string, string];
    // A cell's paths are its code spans that start with a dot; a path ending in / stands for the files under it.
    const paths = [...files.matchAll(/`(\.[^`]+)`/g)].map((m) => m[1]!);
    for (const m of who.matchAll(/`([^`]+)`/g)) told.set(m[1]!, paths);
  }
  assert.deepEqual([...told.keys()].filter((k) => !k.includes(' ')).sort(), [...HOST_NAMES].sort(), 'docs/hosts.md has a row for every host install knows');
  assert.ok(told.has('claude-code --plugin'), 'docs/hosts.md has a row for the Claude Code plugin');
  for (const [who, paths] of told) {
    const project = join(base, who.replace(/\W+/g, '-'));
    mkdirSync(project);
    const done = await runCli(['install', ...who.split(' '), '--project', project], { env: { HOME: join(base, 'home') } });
    assert.equal(done.code, 0, `install ${who}: ${done.stderr}`);
    const written = filesUnder(project).filter((file) => !COMMON_FILES.has(file)).sort();
    const covered = (file: string): boolean => paths.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));
    assert.deepEqual(written.filter((file) => !covered(file)), [], `install ${who} writes files docs/hosts.md does not name`);
    assert.deepEqual(paths.filter((p) => !written.some((file) => (p.endsWith('/') ? file.startsWith(p) : file === p))), [], `docs/hosts.md names files install ${who} does not write`);
  }
  assert.ok(!existsSync(join(base, 'home', '.claude')) && !existsSync(join(base, 'home', '.codex')), 'install without --apply writes nothing in the home folder');
});

test('what the docs say OpenCode needs is what install writes and the shipped plugin loads', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'oc-docs-opencode-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const project = join(base, 'project');
  mkdirSync(project);
  const done = await runCli(['install', 'opencode', '--project', project], { env: { HOME: join(base, 'home') } });
  assert.equal(done.code, 0, done.stderr);
  const opencodeFiles = filesUnder(join(project, '.opencode'));
  assert.ok(opencodeFiles.includes('plugin/opencomms.js'), 'premise: install wrote the plugin');

  // The plugin as OpenCode loads it, once from a folder without the package and once from the
  // shipped bundle's place, where this repository's node_modules has it. Bun, which runs
  // OpenCode's plugins, gives ES modules `require`; Node does not, so it is lent here.
  const global = globalThis as { require?: unknown };
  const hadRequire = 'require' in global;
  if (!hadRequire) global.require = createRequire(__filename);
  t.after(() => { if (!hadRequire) delete global.require; });
  const importEsm = new Function('url', 'return import(url)') as (url: string) => Promise<Record<string, any>>;
  const lone = join(base, 'lone', 'opencomms.mjs');
  mkdirSync(dirname(lone));
  copyFileSync(join(ROOT, 'dist', 'opencode-plugin.js'), lone);
  const hooksFrom = async (file: string, dir: string): Promise<Record<string, any>> => {
    const { OpenCommsPlugin } = await importEsm(pathToFileURL(file).href);
    const hooks = await OpenCommsPlugin({ client: new FakeClient(), project: { id: 'p' }, directory: dir, worktree: dir });
    t.after(() => hooks.dispose());
    return hooks;
  };
  const without = await hooksFrom(lone, project);
  const withPackage = await hooksFrom(join(ROOT, 'dist', 'opencode-plugin.js'), project);
  assert.equal(Object.keys(withPackage.tool ?? {}).length, catalogTools().length, 'premise: with @opencode-ai/plugin at hand the plugin offers every tool');

  const measured: OpencodeNeeds = {
    installWritesPackage: opencodeFiles.some((file) => file === 'package.json' || file.startsWith('node_modules/')),
    toolsWithoutPackage: without.tool !== undefined,
    guardsWithoutPackage: typeof without['tool.execute.before'] === 'function',
  };
  assert.deepEqual(measured, OPENCODE_NEEDS, 'what OpenCode needs changed: update OPENCODE_NEEDS (test/helpers/delivery-docs.ts) and run npm run docs');
  for (const page of ['docs/hosts.md', 'docs/push.md']) {
    const blocks = packageBlocks(read(page));
    assert.ok(blocks.length > 0, `${page} says what OpenCode needs in a needs:opencode-package block`);
    for (const block of blocks) assert.ok(sameWords(block.text, renderOpencodeNeeds(measured)), `${page}:${block.line} differs from: ${renderOpencodeNeeds(measured)}`);
  }
});

// The documents' shell examples work when pasted: every ```sh block of
// README.md, CONTRIBUTING.md and docs/*.md that can run offline here is run
// with bash -e from the repository root (so `node dist/opencomms.js` is the
// shipped file), with its example folders swapped for fresh temporary ones,
// and must exit 0. The worked example (docs/tools.md) runs first, since the
// hook example in docs/push.md reads the project it makes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const RUN_MS = 60_000;

/** Why a block cannot run here, or undefined when it can. */
function whyNot(block: string): string | undefined {
  const rules: Array<[RegExp, string]> = [
    [/\bcurl\b|\bnpx\b|git clone|apt-get|npm install|<owner>|<your [^>]+>|<commit>|<8 hex>/, 'needs the network or a placeholder filled in'],
    [/^\s*(claude|codex|gemini|opencode)\b/m, 'needs a host CLI'],
    [/\bnpm (ci|test)\b/, 'is the project\'s own build and test run'],
    [/OPENCOMMS_STORE=|redis/i, 'needs a Redis server of the reader\'s'],
    [/\$CLAUDE_PROJECT_DIR/, 'is a hook command as a host runs it'],
    [/\bsleep\b/, 'waits on wall-clock time (a spawn-push demonstration)'],
    [/opencomms\.js (say|read)\b/, 'speaks in a channel the reader\'s agents opened'],
  ];
  return rules.find(([pattern]) => pattern.test(block))?.[1];
}

/** Every shell block of the user and contributor documents, with the file it is in. */
function shellBlocks(): Array<{ file: string; block: string }> {
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs].flatMap((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    return [...text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) => ({ file, block: m[1]! }));
  });
}

function runBash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`a documented example ran for more than ${RUN_MS} ms:\n${script}`));
    }, RUN_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('every documented shell example that can run offline exits 0 when pasted', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'oc-readme-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const places: Array<[string, string]> = [
    ['/tmp/opencomms-demo', join(base, 'opencomms-demo')],
    ['/tmp/demo', join(base, 'demo')],
    ['/abs/project', join(base, 'project')],
  ];
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(base, 'home') };
  for (const key of Object.keys(env)) if (/^OPENCOMMS_|^CLAUDE_/.test(key)) delete env[key];
  const blocks = shellBlocks();
  const worked = blocks.findIndex((b) => b.block.includes('P=/tmp/opencomms-demo'));
  assert.ok(worked >= 0, 'the docs have their worked example');
  const ordered = [blocks[worked]!, ...blocks.filter((_, i) => i !== worked)];
  await runBash(`mkdir -p ${places.map(([, dir]) => `'${dir}'`).join(' ')} '${env.HOME}'`, env);
  let ran = 0;
  const skipped: string[] = [];
  for (const { file, block } of ordered) {
    const reason = whyNot(block);
    if (reason) {
      skipped.push(`${file}: ${block.split('\n')[0]!.slice(0, 60)}… (${reason})`);
      continue;
    }
    // `watch` runs until Ctrl-C: its line is the example of a long-running command, not of its output.
    let script = block.split('\n').filter((line) => !/Ctrl-C|opencomms\.js watch\b/.test(line)).join('\n');
    if (script.trim() === '') continue;
    for (const [from, to] of places) script = script.split(from).join(to);
    const result = await runBash(script, env);
    assert.equal(result.code, 0, `${file}: example failed (exit ${result.code}):\n${block}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
    ran += 1;
  }
  assert.ok(ran >= 6, `only ${ran} documented examples could run; skipped:\n${skipped.join('\n')}`);
});

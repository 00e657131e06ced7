// Runs the file-writing commands (install, uninstall, pin, doctor, status) in
// this process, wired as src/cli/main.ts wires them, and returns what
// runCli would: the exit code and the text of stdout and stderr. A spawn of
// the bundle costs a Node start-up and, under c8, a coverage file to merge;
// the tables of hosts and cases need neither. Each file keeps a few runCli
// tests so the executable's own wiring stays covered.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseCommandLine, UsageError } from '../../src/cli/args';
import { resolveStoreSelection, type StoreSelection } from '../../src/store';
import { runInstall, runUninstall } from '../../src/hosts';
import { runPin } from '../../src/cli/pin';
import { runDoctor } from '../../src/cli/doctor';
import { runStatus } from '../../src/cli/status';
import { cliEnv, DIST, type Finished } from './server';

const VERSION = (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

/** As main.ts's compileCacheHome, with `env` for process.env. */
function compileCacheHomeIn(env: NodeJS.ProcessEnv): string | undefined {
  const wanted = env.OPENCOMMS_COMPILE_CACHE;
  if (wanted === '0') return undefined;
  const { enableCompileCache } = require('node:module') as { enableCompileCache?: unknown };
  if (wanted !== '1' && typeof enableCompileCache !== 'function') return undefined;
  return env.HOME || homedir();
}

/**
 * `opencomms <args>` run here instead of in a child: the same exit codes and
 * the same stderr lines for a usage error (2) or a failure (1). `cwd` stands
 * for the child's working folder (a relative or missing --project resolves
 * against it); `env` is laid over process.env as runCli lays it (cliEnv).
 */
export async function runCliInProcess(
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<Finished> {
  const env = cliEnv(options.env);
  let stdout = '';
  let stderr = '';
  const write = (text: string): void => void (stdout += text);
  const warn = (text: string): void => void (stderr += text.endsWith('\n') ? text : `${text}\n`);
  try {
    const code = await runParsed(args, env, resolve(options.cwd ?? process.cwd()), write, warn);
    return { code, stdout, stderr };
  } catch (err) {
    stderr += `opencomms: ${err instanceof Error ? err.message : String(err)}\n`;
    return { code: err instanceof UsageError ? err.exitCode : 1, stdout, stderr };
  }
}

async function runParsed(
  args: string[], env: NodeJS.ProcessEnv, cwd: string, write: (text: string) => void, warn: (text: string) => void,
): Promise<number> {
  const parsed = parseCommandLine(args);
  if (parsed.kind !== 'command') throw new Error(`runCliInProcess runs commands only, not --${parsed.kind}`);
  const { flags } = parsed;
  const projectDir = resolve(cwd, flags.project ?? env.OPENCOMMS_PROJECT_DIR ?? cwd);
  switch (parsed.command) {
    case 'install':
      return runInstall({
        projectDir, host: parsed.positionals[0], memberId: flags.member, dryRun: flags.dryRun, plugin: flags.plugin,
        apply: flags.apply, hasReadProjectConfig: flags.hasReadProjectConfig, store: flags.store, bundlePath: DIST, version: VERSION, env, write, warn,
        compileCacheHome: compileCacheHomeIn(env),
      });
    case 'uninstall':
      return runUninstall({ projectDir, host: parsed.positionals[0], dryRun: flags.dryRun, env, write, warn });
    case 'pin':
      return runPin({ projectDir, host: flags.host ?? 'mcp', id: flags.id, write });
    case 'status':
      return runStatus({ projectDir, json: flags.json, write, selection: resolveStoreSelection({ flag: flags.store, env }) });
    case 'doctor': {
      let store: StoreSelection;
      let storeProblem: unknown;
      try {
        store = resolveStoreSelection({ flag: flags.store, env });
      } catch (err) {
        store = { kind: 'file' };
        storeProblem = err;
      }
      return runDoctor({
        projectDir, fix: flags.fix, json: flags.json, version: VERSION, bundlePath: DIST, write,
        store, storeProblem, caPath: env.OPENCOMMS_STORE_CA?.trim() || undefined, env,
      });
    }
    default:
      throw new Error(`runCliInProcess does not run "${parsed.command}": it reads stdin or runs until stopped; use runCli`);
  }
}

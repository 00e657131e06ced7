// Helpers for the install e2e tests: snapshots of a project's files, and
// starting a server exactly as a host config says.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import type { TestContext } from 'node:test';
import { runToExit, WAIT_MS, type Finished, type Json } from '../helpers/server';

/** Every file under `dir` (relative path → bytes as text). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    if (!existsSync(at)) return;
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/**
 * A throwaway HOME (removed after the test) for commands that read or write
 * the user's host settings: install --apply (Codex, Gemini CLI trust) and doctor.
 */
export function tempHome(t: TestContext): string {
  const home = mkdtempSync(join(tmpdir(), 'opencomms-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

/** The install flags that also write a host's trust into the user's files (Codex, Gemini CLI). */
export function trustFlags(host: string): string[] {
  return host === 'codex' || host === 'gemini-cli' ? ['--apply'] : [];
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
}

export function readJson(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8'));
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export interface Launch {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * Spawns `launch` (with `node` taken as this Node), sends `initialize`, and
 * returns the reply. Runs from the OS temp dir so nothing leans on the cwd.
 */
export function initializeWith(t: TestContext, launch: Launch, cwd: string): Promise<Json> {
  const command = launch.command === 'node' ? process.execPath : launch.command;
  const child = spawn(command, launch.args, { env: { ...process.env, ...launch.env }, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
    await exited;
    clearTimeout(timer);
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no initialize reply within ${WAIT_MS} ms; stderr: ${stderr}`)), WAIT_MS);
    let buffered = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (const line of buffered.split('\n').slice(0, -1)) {
        const message = JSON.parse(line) as Json;
        if (message.id === 1) {
          clearTimeout(timer);
          child.stdin.end();
          resolve(message);
        }
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    child.on('exit', () => reject(new Error(`server exited before replying; stderr: ${stderr}`)));
    child.stdin.write(`${JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'install-test', version: '0' } },
    })}\n`);
  });
}

/** Runs a hook command through sh, as the hosts do, with an event on stdin and the host's variables in `env`. */
export function runHookCommand(command: string, event: Json, cwd: string, env: Record<string, string> = {}): Promise<Finished> {
  const child = spawn('sh', ['-c', command], { cwd, env: { ...process.env, OPENCOMMS_MEMBER_ID: '', ...env } });
  return runToExit(child, JSON.stringify(event), 'hook command');
}

/** What install writes for the server, per host: args, and where the host starts it. */
export const BUNDLE_REL = '.opencomms/opencomms.js';

/** The server args install writes for `host` in `project`, without --member. */
export function expectedArgs(host: string, project: string): string[] {
  const abs = [join(project, '.opencomms', 'opencomms.js'), '--project', project, '--host', host];
  switch (host) {
    case 'claude-code':
      return ['${CLAUDE_PROJECT_DIR:-.}/.opencomms/opencomms.js', '--project', '${CLAUDE_PROJECT_DIR:-.}', '--host', host];
    case 'gemini-cli':
      return ['./.opencomms/opencomms.js', '--project', '.', '--host', host];
    case 'cursor':
    case 'vscode':
      return ['${workspaceFolder}/.opencomms/opencomms.js', '--project', '${workspaceFolder}', '--host', host];
    default:
      return abs;
  }
}

/** The hook command install writes for `host` in `project`, without --member. */
export function expectedHook(host: string, project: string): string {
  const bin = (dir: string): string => `node "${dir}/.opencomms/opencomms.js" hook --project "${dir}"`;
  switch (host) {
    case 'claude-code':
      return `OPENCOMMS_HOST=${host} ${bin('$CLAUDE_PROJECT_DIR')}`;
    case 'gemini-cli':
      return `OPENCOMMS_HOST=${host} ${bin('${GEMINI_PROJECT_DIR:-.}')}`;
    default:
      return `OPENCOMMS_HOST=${host} node "${join(project, '.opencomms', 'opencomms.js')}" hook --project "${project}"`;
  }
}

/** Expands `${NAME}` and `${NAME:-default}` as Claude Code does in .mcp.json (an unset name without a default stays as it is). */
export function expandLikeClaude(text: string, env: Record<string, string | undefined>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (whole, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    return fallback ?? whole;
  });
}

/**
 * The launch as `host` would start it from a config in `project`: variables
 * expanded the way that host expands them, and the folder it starts the server in.
 */
export function launchAsHost(host: string, launch: Launch, project: string, env: Record<string, string> = {}): { launch: Launch; cwd: string } {
  const expand = (text: string): string => {
    if (host === 'claude-code') return expandLikeClaude(text, { CLAUDE_PROJECT_DIR: project, ...env });
    if (host === 'cursor' || host === 'vscode') return text.split('${workspaceFolder}').join(project);
    return text;
  };
  const cwd = host === 'gemini-cli' || host === 'claude-code' ? project : tmpdir();
  return {
    launch: { command: expand(launch.command), args: launch.args.map(expand), env: Object.fromEntries(Object.entries(launch.env ?? {}).map(([k, v]) => [k, expand(v)])) },
    cwd,
  };
}

// Shared set-up for the tools-*.test.ts files: several servers on one
// project directory, each speaking as its own member. `member` and
// `channelOf` start real server processes; `localMember` and
// `localChannelOf` start the same servers in this process, for the tables
// of cases whose subject is not the process itself.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import type { TestContext } from 'node:test';
import { startServer, type Json, type ServerProcess } from '../helpers/server';
import { startInProcess, type InProcessServer } from '../helpers/server-in-process';

/** What the helpers below need of a server: a process or one in this process. */
export type Speaker = Pick<ServerProcess, 'request' | 'callTool'>;

/** The environment a member's server sees: only what we set, nothing inherited that names an identity. */
export function memberEnv(memberId: string | undefined): Record<string, string | undefined> {
  return {
    OPENCOMMS_MEMBER_ID: memberId,
    OPENCOMMS_PROJECT_DIR: undefined,
    OPENCOMMS_PROJECT_ID: undefined,
    OPENCOMMS_NO_SPAWN: '1',
    CLAUDE_CODE_SESSION_ID: undefined,
  };
}

/**
 * A server on `project` speaking as `memberId`; when that is undefined, as
 * the member of its host session: `claudeSession` as Claude Code's
 * CLAUDE_CODE_SESSION_ID, else its host process (this test process).
 */
export async function member(
  t: TestContext,
  project: string,
  memberId: string | undefined,
  host = 'mcp',
  claudeSession?: string,
): Promise<ServerProcess> {
  const env = { ...memberEnv(memberId), CLAUDE_CODE_SESSION_ID: claudeSession };
  const server = startServer(t, { project, args: ['--project', project, '--host', host], env });
  await server.initialize();
  return server;
}

/** As `member`, but the server runs in this process (test/helpers/server-in-process.ts). */
export async function localMember(
  t: TestContext,
  project: string,
  memberId: string | undefined,
  host = 'mcp',
  claudeSession?: string,
): Promise<InProcessServer> {
  const env = { ...memberEnv(memberId), CLAUDE_CODE_SESSION_ID: claudeSession };
  const server = startInProcess(t, { project, host, env });
  await server.initialize();
  return server;
}

/** The full MCP result of a tools/call (content, structuredContent, isError). */
export async function callRaw(server: Speaker, name: string, args: Json): Promise<Json> {
  const reply = await server.request('tools/call', { name, arguments: args });
  assert.equal(reply.error, undefined, `tools/call ${name} answered a wire error: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

/** Calls a tool that must succeed and returns its ToolResult. */
export async function ok(server: Speaker, name: string, args: Json = {}): Promise<Json> {
  const result = await server.callTool(name, args);
  assert.equal(result.ok, true, `${name} ${JSON.stringify(args)} was refused: ${JSON.stringify(result)}`);
  return result;
}

/** Calls a tool that must be refused with `reason`, and returns its ToolResult. */
export async function refused(server: Speaker, name: string, args: Json, reason: string): Promise<Json> {
  const raw = await callRaw(server, name, args);
  assert.equal(raw.isError, true, `${name} ${JSON.stringify(args)} was not refused: ${JSON.stringify(raw.structuredContent)}`);
  assert.equal(raw.structuredContent.ok, false);
  assert.equal(raw.structuredContent.data?.reason, reason, `${name}: ${JSON.stringify(raw.structuredContent)}`);
  return raw.structuredContent;
}

export function create(server: Speaker, channel: string, role: string, extra: Json = {}): Promise<Json> {
  return ok(server, 'opencomms_create', { channel, role, role_prompt: `You are the ${role}.`, ...extra });
}

export function join(server: Speaker, channel: string, role: string): Promise<Json> {
  return ok(server, 'opencomms_join', { channel, role, role_prompt: `You are the ${role}.` });
}

/** A channel `name` with one server per role, each made by `start`; the first role creates it (and is its coordinator). */
async function channelWith<S extends Speaker>(start: (memberId: string) => Promise<S>, name: string, roles: readonly string[], createArgs: Json): Promise<S[]> {
  const servers: S[] = [];
  for (const [i, role] of roles.entries()) {
    const server = await start(`sess_${role}`);
    if (i === 0) await create(server, name, role, createArgs);
    else await join(server, name, role);
    servers.push(server);
  }
  return servers;
}

/** A channel `name` with one server process per role; the first role creates it (and is its coordinator). */
export function channelOf(t: TestContext, project: string, name: string, roles: readonly string[], createArgs: Json = {}): Promise<ServerProcess[]> {
  return channelWith((memberId) => member(t, project, memberId), name, roles, createArgs);
}

/** As `channelOf`, with each member's server in this process. */
export function localChannelOf(t: TestContext, project: string, name: string, roles: readonly string[], createArgs: Json = {}): Promise<InProcessServer[]> {
  return channelWith((memberId) => localMember(t, project, memberId), name, roles, createArgs);
}

export function statePath(project: string): string {
  return joinPath(project, '.opencomms', 'state.json');
}

export function stateBytes(project: string): Buffer {
  const path = statePath(project);
  return existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
}

/**
 * Edits state.json the way another process could between two calls. Only
 * safe while no call is in flight, which holds: each test awaits its replies.
 */
export function editState(project: string, edit: (state: Json) => void): void {
  const state = JSON.parse(readFileSync(statePath(project), 'utf8'));
  edit(state);
  writeFileSync(statePath(project), JSON.stringify(state, null, 2));
}

/** Every framed text a pull (or inbox / history / archive messages) result carries. */
export function framedTexts(result: Json): string[] {
  return (result.data?.messages ?? []).map((m: Json) => m.framed as string);
}

// The tools OpenCode offers its sessions: the MCP server's own catalog
// (src/tools/catalog.ts), all of it, with the same names, arguments and
// results, each call speaking as the member its OpenCode session is linked
// to (session-members.ts). The plugin adds only what an OpenCode session
// needs: the session check, the root-session check before create and join,
// and an immediate push of a send to recipients hosted here.
import type { ToolResult } from '../engine';
import { buildTools as buildCatalog } from '../tools/catalog';
import { ToolRegistry, type ToolCall } from '../tools/registry';
import { argumentProblemResult, findArgumentProblem } from '../tools/schema';
import { ToolServices } from '../tools/services';
import type { EmbeddingHost } from '../tools/identity-keeper';
import type { Identity } from '../tools/env-identity';
import type { Store } from '../store';
import type { HostClient, HostToolDefinition, SchemaKit } from './host-types';
import { checkRootSession, memberOptionsFor, OPENCODE_HOST_ID, type OpenCodeLocation } from './identity';
import type { SessionMembers } from './session-members';
import { presentArgs, zodArgs } from './tool-args';

export interface ToolDeps {
  store: Store;
  client: HostClient;
  location: OpenCodeLocation;
  members: SessionMembers;
  /** Called with every session that uses a tool: it lives on this instance. */
  noteSession: (sessionId: string) => void;
  /** Recipients (member ids) of a send made here: the plugin pushes to those it hosts. */
  onSent: (recipients: string[]) => void;
  log: (line: string) => void;
}

/** The tools that make the caller a member: only a root session may use them. */
const ENTRY_TOOLS = new Set(['opencomms_create', 'opencomms_join']);

const NO_SESSION: ToolResult = {
  ok: false, message: 'OpenCode gave this tool call no session id, so it acts as no member.', data: { reason: 'not_member' },
};

/** One tool call from OpenCode. Its reply is handed over when execute returns; there is no wire that could fail to carry it. */
class PluginCall implements ToolCall {
  private readonly after: Array<(fate: 'sent' | 'not_sent') => void | Promise<void>> = [];

  constructor(readonly sessionId: string) {}

  afterReply(action: (fate: 'sent' | 'not_sent') => void | Promise<void>): void {
    this.after.push(action);
  }

  /** Runs what waits on the reply (a pull's commit or give-back) before execute returns, so the next call sees it settled. */
  async settle(fate: 'sent' | 'not_sent'): Promise<void> {
    for (const action of this.after.splice(0)) await action(fate);
  }
}

/** The tool definitions for the `tool` hook, built with OpenCode's own schema builder. */
export function buildTools(deps: ToolDeps, kit: SchemaKit): Record<string, HostToolDefinition> {
  const embedding: EmbeddingHost = {
    projectId: deps.location.project_id,
    worktree: deps.location.worktree,
    async identify(call): Promise<Identity> {
      const sessionId = call instanceof PluginCall ? call.sessionId : undefined;
      const memberId = sessionId === undefined ? undefined : await deps.members.link(sessionId);
      return memberId === undefined
        ? { kind: 'unpinned', problem: NO_SESSION.message }
        : { kind: 'pinned', memberId, source: 'session' };
    },
    // The calling session, never an argument, is where the member's mail is pushed.
    membership: (call) => memberOptionsFor(call instanceof PluginCall ? call.sessionId : ''),
  };
  // The plugin never spawns host processes: OpenCode's own sessions get their mail by push.
  const services = new ToolServices({
    projectDir: deps.store.projectDir, host: OPENCODE_HOST_ID, env: { OPENCOMMS_NO_SPAWN: '1' }, log: deps.log, store: deps.store, embedding,
  });
  const catalog = buildCatalog(services);
  const registry = new ToolRegistry(catalog);

  async function refusedAsChild(sessionId: string): Promise<ToolResult | undefined> {
    const check = await checkRootSession(deps.client, sessionId);
    if (check.ok) return undefined;
    if (check.reason === 'session_lookup_failed') {
      // Recorded for the session's member (linked now if this is its first call), so its
      // `status` and `doctor` show why a join silently did not happen.
      const memberId = await deps.members.link(sessionId);
      await deps.store.mutate('push_note_error', { message: check.message, member: memberId ?? null });
    }
    return { ok: false, message: check.message, data: { reason: check.reason } };
  }

  async function run(name: string, args: Record<string, unknown>, sessionId: string): Promise<string> {
    deps.noteSession(sessionId);
    const given = presentArgs(args);
    const descriptor = catalog.find((d) => d.name === name)!;
    // Checked before the root check and before the session is linked: a bad call changes nothing.
    const problem = findArgumentProblem(descriptor.inputSchema, given);
    if (problem) return JSON.stringify(argumentProblemResult(problem));
    if (ENTRY_TOOLS.has(name)) {
      const refusal = await refusedAsChild(sessionId);
      if (refusal) return JSON.stringify(refusal);
    }
    const call = new PluginCall(sessionId);
    let text: string;
    try {
      const result = (await registry.call(name, given, call)).structuredContent;
      // A send made here does not wait for the state watcher to notice it.
      if (name === 'opencomms_send' && result.ok && Array.isArray(result.data?.recipients)) deps.onSent(result.data.recipients as string[]);
      text = JSON.stringify(result);
    } catch (err) {
      await call.settle('not_sent');
      throw err;
    }
    await call.settle('sent');
    return text;
  }

  const out: Record<string, HostToolDefinition> = {};
  for (const descriptor of catalog) {
    out[descriptor.name] = {
      description: descriptor.description,
      args: zodArgs(descriptor.inputSchema, kit),
      async execute(args, context) {
        const sessionId = context?.sessionID;
        // Without a session id there is no one to act as; the catalog's refusal would speak of a pin.
        if (typeof sessionId !== 'string' || sessionId.trim() === '') return JSON.stringify(NO_SESSION);
        return run(descriptor.name, args, sessionId);
      },
    };
  }
  return out;
}

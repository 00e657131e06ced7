// Shared set-up for the hook tests: a temp project with real state written
// through the store and engine, and runHook called the way the CLI calls it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { createChannel, joinChannel, sendMessage, type State, type ToolResult } from '../../src/engine/index';
import { openStore, type Store } from '../../src/store/index';
import { runHook } from '../../src/hooks/index';
import { edit } from '../helpers/edit';

export function tempProject(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'oc-hook-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function mustOk(result: ToolResult): ToolResult {
  assert.equal(result.ok, true, `expected ok: ${result.message} ${JSON.stringify(result.data)}`);
  return result;
}

export interface MemberSpec {
  id: string;
  role: string;
  host?: string;
  hostSessionId?: string | null;
  /** Who named hostSessionId; the host when left out. */
  hostSessionSource?: 'host' | 'argument';
  deliveryMode?: 'pull' | 'spawn_push';
}

/** Creates `channel` with the given members (the first creates it); returns the store. */
export async function channelWith(project: string, channel: string, members: MemberSpec[], extra: Record<string, unknown> = {}): Promise<Store> {
  const store = openStore({ projectDir: project });
  await edit(store, (state, ctx) => {
    const [first, ...rest] = members;
    const base = (m: MemberSpec) => ({
      channel, role: m.role, role_prompt: `You are the ${m.role}.`, session_id: m.id, project_id: 'local-project', worktree: project,
      host: m.host ?? 'claude-code', host_session_id: m.hostSessionId ?? null, host_session_source: m.hostSessionSource ?? ('host' as const),
      ...(m.deliveryMode ? { delivery_mode: m.deliveryMode } : {}),
    });
    mustOk(createChannel(state, { ...base(first!), rate_limit: 1000, max_agent_streak: 0, ...extra }, ctx));
    for (const m of rest) mustOk(joinChannel(state, base(m), ctx));
    return { ok: true, message: 'set up' };
  });
  return store;
}

/** Sends one message per content from `from` to `to` on `channel`; returns their ids in order. */
export async function send(store: Store, channel: string, from: string, to: string, contents: string[]): Promise<string[]> {
  const ids: string[] = [];
  await edit(store, (state, ctx) => {
    for (const content of contents) {
      const result = mustOk(sendMessage(state, { channel, session_id: from, to, content }, ctx));
      ids.push(...(result.data!.message_ids as string[]));
    }
    return { ok: true, message: 'sent' };
  });
  return ids;
}

export interface HookRun {
  code: number;
  out: string;
  answer: Record<string, any>;
  warnings: string[];
}

/** Calls runHook as the CLI does, with the event as stdin. */
export async function hook(
  project: string | undefined,
  event: Record<string, unknown> | string,
  env: Record<string, string> = {},
  extra: { cwd?: string; wait?: boolean; timeoutMs?: number; write?: (text: string) => void | Promise<void> } = {},
): Promise<HookRun> {
  let out = '';
  const warnings: string[] = [];
  const code = await runHook({
    explicitProjectDir: project,
    cwd: extra.cwd ?? tmpdir(),
    env,
    input: typeof event === 'string' ? event : JSON.stringify(event),
    wait: extra.wait ?? false,
    timeoutMs: extra.timeoutMs,
    write: extra.write ?? ((text) => { out += text; }),
    warn: (text) => warnings.push(text),
  });
  assert.equal(code === 0 || code === 2, true);
  if (extra.write) return { code, out, answer: {}, warnings };
  assert.match(out, /^\{.*\}\n$/s, 'exactly one JSON object and a newline');
  assert.equal(out.indexOf('\n'), out.length - 1, 'one line only');
  return { code, out, answer: JSON.parse(out), warnings };
}

/** A Claude Code style event. */
export function claudeEvent(name: string, sessionId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { hook_event_name: name, session_id: sessionId, transcript_path: '/tmp/t.jsonl', cwd: '/nonexistent-cwd', ...extra };
}

/** A Gemini CLI style event (its base input carries an ISO timestamp). */
export function geminiEvent(name: string, sessionId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...claudeEvent(name, sessionId), timestamp: new Date().toISOString(), ...extra };
}

/** A Codex style event (turn-scoped events carry turn_id and model). */
export function codexEvent(name: string, sessionId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...claudeEvent(name, sessionId), turn_id: 'turn-1', model: 'gpt-5', ...extra };
}

/** The state as on disk, plus history, read lock-free. */
export function stateOf(store: Store): State {
  return store.snapshot();
}

/** The status of a message, wherever it lives now (live state or history). */
export function statusOf(store: Store, channel: string, messageId: string): string | undefined {
  const state = store.snapshot();
  const live = state.messages[messageId];
  if (live) return live.delivery_status;
  const chn = state.channels[channel];
  return chn ? store.history.find(chn.id, messageId)?.delivery_status : undefined;
}

export function historyRecord(store: Store, channel: string, messageId: string) {
  const chn = store.snapshot().channels[channel]!;
  return store.history.find(chn.id, messageId);
}

/** The text the model would see: additionalContext or reason. */
export function textOf(answer: Record<string, any>): string {
  return answer.hookSpecificOutput?.additionalContext ?? answer.reason ?? '';
}

// The ordered tool table and the one door every tools/call goes through:
// argument guard, handler, ToolResult → MCP result.
import type { ToolResult } from '../engine/types';
import { StoreFault } from '../files/faults';
import { argumentProblemResult, findArgumentProblem, type InputSchema } from './schema';

export interface ToolAnnotations {
  /** Absent means false (MCP's default). */
  readOnlyHint?: true;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: false;
}

/**
 * The call a handler serves. `afterReply` runs work once the reply's fate is
 * known: `sent` when it was written to the host, `not_sent` when it was
 * cancelled or could not be written (PROTOCOL 7.1).
 */
export interface ToolCall {
  afterReply(action: (fate: 'sent' | 'not_sent') => void | Promise<void>): void;
  /** The request's `_meta` as the host sent it (Codex names its thread there: `threadId`). */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** For callers outside a JSON-RPC request (tests, the CLI): the reply counts as sent once the handler returns. */
export const DIRECT_CALL: ToolCall = {
  afterReply: (action) => void Promise.resolve().then(() => action('sent')),
};

export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: InputSchema;
  annotations: ToolAnnotations;
  /** `call` is absent for a direct call outside a request: the result then counts as handed over (DIRECT_CALL). */
  handler: (args: Record<string, unknown>, call?: ToolCall) => Promise<ToolResult> | ToolResult;
}

/** Every tool answers with the same ToolResult shape. */
// `data` (an object, per tool) is left open rather than listed: the list is
// read into every model's context at start, and naming it adds nothing a model uses.
export const TOOL_RESULT_SCHEMA = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    message: { type: 'string' },
  },
  required: ['ok', 'message'],
} as const;

export interface McpToolResult extends Record<string, unknown> {
  content: { type: 'text'; text: string }[];
  structuredContent: ToolResult;
  isError: boolean;
}

export function toMcpResult(result: ToolResult): McpToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: result,
    isError: !result.ok,
  };
}

export class ToolRegistry {
  private readonly byName = new Map<string, ToolDescriptor>();
  private listing: unknown[] | undefined;

  constructor(private readonly tools: readonly ToolDescriptor[]) {
    for (const tool of tools) this.byName.set(tool.name, tool);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The tools/list entries, in table order; built once, on first use. */
  list(): unknown[] {
    this.listing ??= this.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: TOOL_RESULT_SCHEMA,
      annotations: t.annotations,
    }));
    return this.listing;
  }

  async call(name: string, args: Record<string, unknown>, call: ToolCall = DIRECT_CALL): Promise<McpToolResult> {
    const tool = this.byName.get(name);
    if (!tool) throw new Error(`call of unregistered tool ${name}`);
    const problem = findArgumentProblem(tool.inputSchema, args);
    if (problem) return toMcpResult(argumentProblemResult(problem));
    try {
      return toMcpResult(await tool.handler(args, call));
    } catch (err) {
      // A store fault is the project's trouble, not a bug: the agent is told
      // what failed and what to do, as a tool error it can read.
      if (err instanceof StoreFault) return toMcpResult(storeFaultResult(err));
      throw err;
    }
  }
}

/** What a tool answers when the store could not do its part. Nothing was changed. */
export function storeFaultResult(fault: StoreFault): ToolResult {
  const advice = fault.code === 'lock_timeout'
    ? 'Another OpenComms process kept the state lock too long; nothing was changed. Try again; if it persists, run `opencomms doctor` (or ask the user to).'
    : fault.hasFix
      ? 'Nothing was changed. Ask the user to make that fix; `opencomms doctor` lists every such entry.'
      : 'Nothing was changed. Check the permissions and free space of the project\'s .opencomms folder, then run `opencomms doctor` (or ask the user to).';
  return { ok: false, message: `${fault.message}. ${advice}`, data: { reason: fault.code } };
}

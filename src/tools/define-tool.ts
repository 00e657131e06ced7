// How a tool of the catalog is written: its schema, and a handler whose
// arguments take their types from that schema. The annotation sets and the
// argument properties several tools share live here too.
import { MAX_CHANNEL_NAME_CHARS, MAX_PAGE_LIMIT, MAX_ROLE_CHARS, type ToolResult } from '../engine';
import type { ToolAnnotations, ToolDescriptor } from './registry';
import type { ArgsOf, InputSchema } from './schema';
import type { Caller } from './identity-keeper';

/** The longest id (message, member, archive) or reference an argument takes. */
export const MAX_ID_CHARS = 80;

export const CHANNEL_ARG = { type: 'string', maxLength: MAX_CHANNEL_NAME_CHARS } as const;
export const ROLE_ARG = { type: 'string', maxLength: MAX_ROLE_CHARS } as const;
export const ROLE_PROMPT_ARG = { type: 'string', description: 'Your standing instructions here' } as const;
export const LIMIT_ARG = { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT } as const;
export const MEMBER_REF_ARG = { type: 'string', maxLength: MAX_ID_CHARS, description: 'Member session id or role' } as const;

export const READ_TOOL: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
// readOnlyHint is left out where it is false: MCP's default, and bytes every model reads at start.
export const WRITE_TOOL: ToolAnnotations = { destructiveHint: false, openWorldHint: false };
export const IDEMPOTENT_TOOL: ToolAnnotations = { destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const DESTRUCTIVE_TOOL: ToolAnnotations = { destructiveHint: true, openWorldHint: false };

/** A tool as the catalog holds it: its handler gets the caller, found once at the start of the call. */
export type CallerTool = Omit<ToolDescriptor, 'handler'> & {
  handler: (args: Record<string, unknown>, caller: Caller) => Promise<ToolResult> | ToolResult;
};

/** A tool whose handler reads its arguments with the types its schema declares. */
export function defineTool<S extends InputSchema>(tool: Omit<ToolDescriptor, 'handler' | 'inputSchema'> & {
  inputSchema: S;
  handler: (args: ArgsOf<S>, caller: Caller) => Promise<ToolResult> | ToolResult;
}): CallerTool {
  // Every way in (ToolRegistry.call, the OpenCode plugin's run) checks the
  // arguments against this very schema before the handler runs.
  return { ...tool, handler: (args, caller) => tool.handler(args as ArgsOf<S>, caller) };
}

/** A tool error with its stable reason. */
export function toolRefusal(reason: string, message: string): ToolResult {
  return { ok: false, message, data: { reason } };
}

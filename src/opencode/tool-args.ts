// Tool arguments are declared once, in the MCP server's JSON-Schema subset,
// and turned into OpenCode's zod for the `tool` hook. execute checks them
// again with the MCP server's own guard: OpenCode runs zod before execute,
// but the engine calls below rely on the types, and a refusal worded like
// the MCP server's keeps the two surfaces interchangeable.
import type { ToolResult } from '../engine';
import { argumentProblemResult, findArgumentProblem, tooLongReason, type InputSchema, type PropertySchema } from '../tools/schema';
import type { SchemaKit, SchemaNode } from './host-types';

export type { InputSchema, PropertySchema };

export function objectSchema(properties: Record<string, PropertySchema>, required: string[] = []): InputSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

function zodOf(name: string, property: PropertySchema, kit: SchemaKit): SchemaNode {
  switch (property.type) {
    case 'string': {
      if (property.enum && property.enum.length > 0) return kit.enum(property.enum as readonly [string, ...string[]]);
      let node = kit.string();
      if (property.minLength !== undefined) node = node.min(property.minLength);
      // A length with a reason code of its own (content_too_large) is left to
      // execute's guard: zod's refusal would reach the model without it.
      if (property.maxLength !== undefined && tooLongReason(name) === 'invalid_argument') node = node.max(property.maxLength);
      return node;
    }
    case 'integer':
    case 'number': {
      let node = kit.number();
      if (property.type === 'integer') node = node.int();
      if (property.minimum !== undefined) node = node.min(property.minimum);
      if (property.maximum !== undefined) node = node.max(property.maximum);
      return node;
    }
    case 'boolean':
      return kit.boolean();
    case 'array':
      // Item lengths and counts are left to execute's guard, worded like the MCP server's.
      return kit.array(kit.string());
  }
}

/** The `args` of an OpenCode tool: one zod node per property, optional unless required. */
export function zodArgs(input: InputSchema, kit: SchemaKit): Record<string, SchemaNode> {
  const required = new Set(input.required ?? []);
  const out: Record<string, SchemaNode> = {};
  for (const [name, property] of Object.entries(input.properties)) {
    let node = zodOf(name, property, kit);
    if (property.description) node = node.describe(property.description);
    out[name] = required.has(name) ? node : node.optional();
  }
  return out;
}

/**
 * The MCP server's refusal for bad arguments, or undefined when they are
 * fine. An argument present as `undefined` counts as absent: that is how an
 * omitted optional reaches execute after zod.
 */
export function argumentRefusal(input: InputSchema, args: Record<string, unknown>): ToolResult | undefined {
  const given = Object.fromEntries(Object.entries(args !== null && typeof args === 'object' ? args : {}).filter(([, value]) => value !== undefined));
  const problem = findArgumentProblem(input, given);
  if (!problem) return undefined;
  return argumentProblemResult(problem);
}

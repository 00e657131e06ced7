// Tool arguments are declared once, in the MCP server's JSON-Schema subset
// (src/tools/catalog.ts), and turned into OpenCode's zod for the `tool` hook.
// execute checks them again with the MCP server's own guard: OpenCode runs
// zod before execute, but the handlers rely on the types, and a refusal
// worded like the MCP server's keeps the two surfaces interchangeable.
import { tooLongReason, type InputSchema, type PropertySchema } from '../tools/schema';
import type { SchemaKit, SchemaNode } from './host-types';

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
 * The arguments as the MCP server would get them: one present as
 * `undefined` counts as absent, since that is how an omitted optional
 * reaches execute after zod.
 */
export function presentArgs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args !== null && typeof args === 'object' ? args : {}).filter(([, value]) => value !== undefined));
}

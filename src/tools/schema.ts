// The small JSON Schema subset our tool inputs use, and the one generic
// argument guard. No coercion: a value of the wrong type is refused.
import type { Reason } from '../engine/reasons';
import type { ToolResult } from '../engine/types';

export type PropertySchema =
  | { type: 'string'; description?: string; enum?: readonly string[]; minLength?: number; maxLength?: number; pattern?: string }
  | { type: 'integer' | 'number'; description?: string; minimum?: number; maximum?: number }
  | { type: 'boolean'; description?: string; const?: boolean }
  | { type: 'array'; description?: string; items: { type: 'string'; maxLength?: number }; minItems?: number; maxItems?: number };

export interface InputSchema {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: readonly string[];
  additionalProperties: false;
}

/**
 * A tool's input schema with its property literals kept, so its handler's
 * argument type follows from it (ArgsOf). `required` may only name declared properties.
 */
export function objectSchema<
  const P extends Readonly<Record<string, PropertySchema>>,
  const R extends readonly (keyof P & string)[] = [],
>(properties: P, required?: R): { type: 'object'; properties: P; required: R; additionalProperties: false } {
  return { type: 'object', properties, required: required ?? ([] as unknown as R), additionalProperties: false };
}

/** The value the guard lets through for a property of this schema. */
export type ValueOf<P extends PropertySchema> =
  P extends { type: 'string'; enum: readonly (infer E extends string)[] } ? E
    : P extends { type: 'string' } ? string
      : P extends { type: 'integer' | 'number' } ? number
        : P extends { type: 'boolean' } ? boolean
          : P extends { type: 'array' } ? string[]
            : never;

type RequiredOf<S> = S extends { required: readonly (infer R)[] } ? R : never;

/** The arguments a handler gets once findArgumentProblem passed them: required ones present, the rest optional. */
export type ArgsOf<S extends { properties: Readonly<Record<string, PropertySchema>> }> = {
  [K in keyof S['properties'] as K extends RequiredOf<S> ? K : never]: ValueOf<S['properties'][K]>;
} & {
  [K in keyof S['properties'] as K extends RequiredOf<S> ? never : K]?: ValueOf<S['properties'][K]>;
};

export type ArgumentProblem = { argument: string; message: string; reason: ArgumentReason };

/** Most argument problems are `invalid_argument`; a few have a documented code of their own. */
export type ArgumentReason = Extract<Reason, 'invalid_argument' | 'content_too_large'>;

/**
 * Arguments whose length over `maxLength` has its own reason code: message
 * content is documented to be refused as `content_too_large`, like the
 * engine's own check, whichever of the two meets it first.
 */
const TOO_LONG_REASONS: Readonly<Record<string, ArgumentReason>> = { content: 'content_too_large' };

/** The reason a too-long value of argument `name` is refused with. */
export function tooLongReason(name: string): ArgumentReason {
  return Object.prototype.hasOwnProperty.call(TOO_LONG_REASONS, name) ? TOO_LONG_REASONS[name]! : 'invalid_argument';
}

/** The tool error for an argument problem; the state is not touched. */
export function argumentProblemResult(problem: ArgumentProblem): ToolResult {
  return { ok: false, message: problem.message, data: { reason: problem.reason, argument: problem.argument } };
}

function describeType(schema: PropertySchema): string {
  if (schema.type === 'string' && schema.enum) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (schema.type === 'integer') return 'an integer';
  if (schema.type === 'array') return 'an array of strings';
  return `a ${schema.type}`;
}

/** The longest argument name or value a refusal repeats in full. */
const MAX_ECHOED_CHARS = 64;

// A refusal goes back to the model: a megabyte-long name or value is cut
// short rather than repeated.
function clipEchoed(text: string): string {
  return text.length <= MAX_ECHOED_CHARS ? text : `${text.slice(0, MAX_ECHOED_CHARS)}...`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function checkValue(name: string, schema: PropertySchema, value: unknown): ArgumentProblem | undefined {
  const expected = describeType(schema);
  const problem = (message: string, reason: ArgumentReason = 'invalid_argument'): ArgumentProblem => ({ argument: name, message, reason });
  const wrongType = problem(`Argument "${name}" must be ${expected}, got ${typeName(value)}.`);
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return wrongType;
      if (schema.enum && !schema.enum.includes(value)) {
        return problem(`Argument "${name}" must be ${expected}, got ${JSON.stringify(clipEchoed(value))}.`);
      }
      if (schema.minLength !== undefined && value.length < schema.minLength) {
        return problem(`Argument "${name}" must have at least ${schema.minLength} character(s).`);
      }
      if (schema.maxLength !== undefined && value.length > schema.maxLength) {
        return problem(`Argument "${name}" must have at most ${schema.maxLength} characters (got ${value.length}).`, tooLongReason(name));
      }
      return undefined;
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return wrongType;
      if (schema.type === 'integer' && !Number.isInteger(value)) return wrongType;
      if (schema.minimum !== undefined && value < schema.minimum) {
        return problem(`Argument "${name}" must be at least ${schema.minimum} (got ${value}).`);
      }
      if (schema.maximum !== undefined && value > schema.maximum) {
        return problem(`Argument "${name}" must be at most ${schema.maximum} (got ${value}).`);
      }
      return undefined;
    }
    case 'array': {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) return wrongType;
      if (schema.minItems !== undefined && value.length < schema.minItems) {
        return problem(`Argument "${name}" must have at least ${schema.minItems} item(s).`);
      }
      if (schema.maxItems !== undefined && value.length > schema.maxItems) {
        return problem(`Argument "${name}" must have at most ${schema.maxItems} items (got ${value.length}).`);
      }
      const long = schema.items.maxLength === undefined ? -1 : value.findIndex((item: string) => item.length > schema.items.maxLength!);
      if (long >= 0) return problem(`Argument "${name}" item ${long} must have at most ${schema.items.maxLength} characters.`);
      return undefined;
    }
    case 'boolean':
      if (typeof value !== 'boolean') return wrongType;
      if (schema.const !== undefined && value !== schema.const) {
        return problem(`Argument "${name}" must be ${schema.const}.`);
      }
      return undefined;
  }
}

/** Checks arguments against the tool's schema; the first problem found, or undefined. */
export function findArgumentProblem(schema: InputSchema, args: Record<string, unknown>): ArgumentProblem | undefined {
  for (const name of schema.required ?? []) {
    if (!Object.prototype.hasOwnProperty.call(args, name) || args[name] === undefined) {
      const expected = describeType(schema.properties[name]);
      return { argument: name, message: `Missing required argument "${name}" (${expected}).`, reason: 'invalid_argument' };
    }
  }
  for (const [name, value] of Object.entries(args)) {
    const property = Object.prototype.hasOwnProperty.call(schema.properties, name) ? schema.properties[name] : undefined;
    if (!property) {
      const known = Object.keys(schema.properties);
      return {
        argument: clipEchoed(name),
        message: `Unknown argument ${JSON.stringify(clipEchoed(name))}. ${known.length ? `Accepted: ${known.join(', ')}.` : 'This tool takes no arguments.'}`,
        reason: 'invalid_argument',
      };
    }
    const problem = checkValue(name, property, value);
    if (problem) return problem;
  }
  return undefined;
}

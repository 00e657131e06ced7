// The slice of OpenCode's plugin surface this plugin relies on, written as
// structural types. Under this repo's node10 module resolution the SDK types
// behind @opencode-ai/plugin resolve to `any`, so these narrow shapes are what
// actually keeps our calls honest; tests hand in fakes of the same shapes.

/** What an SDK call answers: the default client returns errors instead of throwing. */
export interface SdkResult<T> {
  data?: T;
  error?: unknown;
}

/** A session as `session.get` describes it; only the fields we read. */
export interface HostSession {
  id: string;
  parentID?: string | null;
}

export interface TextPart {
  type: 'text';
  text: string;
}

/** The two client calls the plugin makes. */
export interface HostClient {
  session: {
    get(options: { path: { id: string } }): Promise<SdkResult<HostSession> | HostSession | undefined>;
    prompt(options: { path: { id: string }; body: { parts: TextPart[] } }): Promise<unknown>;
  };
}

/** The parts of the plugin input we read. */
export interface HostPluginInput {
  client: HostClient;
  project?: { id?: string | null } | null;
  directory: string;
  worktree?: string | null;
}

/** An entry on the host's event bus, as handed to the `event` hook. */
export interface HostEvent {
  type: string;
  properties?: Record<string, unknown>;
}

/** The context OpenCode hands a custom tool's execute. */
export interface HostToolContext {
  sessionID: string;
}

/**
 * The schema builder OpenCode's custom tools take their arguments from
 * (`tool.schema` of @opencode-ai/plugin, which is zod). Only what we use.
 */
export interface SchemaNode {
  describe(text: string): SchemaNode;
  optional(): SchemaNode;
}
export interface StringSchemaNode extends SchemaNode {
  min(length: number): StringSchemaNode;
  max(length: number): StringSchemaNode;
}
export interface NumberSchemaNode extends SchemaNode {
  int(): NumberSchemaNode;
  min(value: number): NumberSchemaNode;
  max(value: number): NumberSchemaNode;
}
export interface SchemaKit {
  string(): StringSchemaNode;
  number(): NumberSchemaNode;
  boolean(): SchemaNode;
  enum(values: readonly [string, ...string[]]): SchemaNode;
  array(item: SchemaNode): SchemaNode;
}

/** A custom tool in the shape OpenCode's `tool` hook expects. */
export interface HostToolDefinition {
  description: string;
  args: Record<string, SchemaNode>;
  execute(args: Record<string, unknown>, context: HostToolContext): Promise<string>;
}

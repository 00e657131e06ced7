// The module OpenCode loads (dist/opencode-plugin.js). OpenCode calls every
// export of a plugin module as a plugin (deduplicated by identity), so this
// file exports the plugin function and nothing else.
import type { Hooks, Plugin } from '@opencode-ai/plugin/dist/index.js';
import type { HostPluginInput, SchemaKit } from './host-types';
import { startOpenComms } from './plugin';

// The only environment read of the plugin: an explicit project wins over the search from OpenCode's directory.
function projectDirFromEnv(): string | undefined {
  const raw = process.env.OPENCOMMS_PROJECT_DIR;
  return raw && raw.trim() !== '' ? raw.trim() : undefined;
}

/**
 * OpenCode's zod, as @opencode-ai/plugin exposes it, resolved at run time
 * from the project's .opencode/node_modules (OpenCode installs it there).
 * The specifier is a variable so the bundler leaves the import to run time
 * and the bundle stays free of dependencies; without it we offer no tools.
 */
async function loadHostSchema(): Promise<SchemaKit | undefined> {
  const specifier = '@opencode-ai/plugin';
  try {
    const mod = (await import(specifier)) as { tool?: { schema?: SchemaKit } };
    return mod.tool?.schema;
  } catch {
    return undefined;
  }
}

export const OpenCommsPlugin: Plugin = async (input) => {
  const instance = await startOpenComms(input as unknown as HostPluginInput, {
    projectDir: projectDirFromEnv(),
    loadSchema: loadHostSchema,
  });
  return instance.hooks as unknown as Hooks;
};

export default OpenCommsPlugin;

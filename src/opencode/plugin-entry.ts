// The module OpenCode loads (dist/opencode-plugin.js). OpenCode calls every
// export of a plugin module as a plugin (deduplicated by identity), so this
// file exports the plugin function and nothing else.
import type { Hooks, Plugin } from '@opencode-ai/plugin/dist/index.js';
import type { HostPluginInput, SchemaKit } from './host-types';
import { startOpenComms } from './plugin';
import { resolveStoreSelection, type StoreSelection } from '../store';

// An explicit project wins over the search from OpenCode's directory.
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
  // The store OPENCOMMS_STORE names (a Redis project, with OPENCOMMS_PROJECT_ID and the password from
  // OpenCode's environment). A configuration that does not hold offers nothing rather than fall back
  // to this folder's files, which would split the project.
  let selection: StoreSelection;
  try {
    selection = resolveStoreSelection({ env: process.env });
  } catch (err) {
    process.stderr.write(`opencomms(opencode): ${err instanceof Error ? err.message : String(err)}; the plugin offers no tools and delivers nothing until that is fixed.\n`);
    return {} as Hooks;
  }
  const instance = await startOpenComms(input as unknown as HostPluginInput, {
    projectDir: projectDirFromEnv(),
    selection,
    loadSchema: loadHostSchema,
  });
  return instance.hooks as unknown as Hooks;
};

export default OpenCommsPlugin;

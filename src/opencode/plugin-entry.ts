// The module OpenCode loads (dist/opencode-plugin.js). OpenCode calls every
// export of a plugin module as a plugin (deduplicated by identity), so this
// file exports the plugin function and nothing else.
import type { Hooks, Plugin } from '@opencode-ai/plugin/dist/index.js';
import type { HostPluginInput, SchemaKit } from './host-types';
import { startOpenComms } from './plugin';

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

/**
 * The plugin keeps its state in the project's files. With OPENCOMMS_STORE
 * naming another store it offers nothing rather than split the project
 * between those files and the store the other members use.
 */
function refusedStore(): string | undefined {
  const raw = process.env.OPENCOMMS_STORE?.trim();
  if (raw === undefined || raw === '' || raw === 'file') return undefined;
  return `OPENCOMMS_STORE names ${raw.startsWith('redis') ? 'a Redis store' : 'a store other than the files'}, which the OpenCode plugin cannot use yet; it offers no tools and delivers nothing here, so this project is not split between two stores. Unset OPENCOMMS_STORE for OpenCode, or run OpenCode's members through another host.`;
}

export const OpenCommsPlugin: Plugin = async (input) => {
  const refusal = refusedStore();
  if (refusal !== undefined) {
    process.stderr.write(`opencomms(opencode): ${refusal}\n`);
    return {} as Hooks;
  }
  const instance = await startOpenComms(input as unknown as HostPluginInput, {
    projectDir: projectDirFromEnv(),
    loadSchema: loadHostSchema,
  });
  return instance.hooks as unknown as Hooks;
};

export default OpenCommsPlugin;

// The tools that reserve files before editing and give them back; the
// paths are named as the files they reach (reserve-paths.ts).
import { CHANNEL_ARG, defineTool, IDEMPOTENT_TOOL, WRITE_TOOL, type CallerTool } from './define-tool';
import { realPatterns } from './reserve-paths';
import { objectSchema } from './schema';
import type { ToolServices } from './services';

export function reservationTools(s: ToolServices): Record<'reserve' | 'release', CallerTool> {
  return {
    reserve: defineTool({
      name: 'opencomms_reserve',
      title: 'Reserve files',
      description: 'Reserve files or globs before editing them; others\' edits are blocked until you release or it expires.',
      inputSchema: objectSchema({
        channel: CHANNEL_ARG,
        paths: { type: 'array', items: { type: 'string', maxLength: 512 }, minItems: 1, maxItems: 100, description: 'e.g. src/a.ts, src/**/*.ts' },
        exclusive: { type: 'boolean', description: 'Default true; false: others edit with a warning' },
        reason: { type: 'string', maxLength: 200 },
        ttl_minutes: { type: 'integer', minimum: 1, maximum: 1440, description: 'Default 60' },
      }, ['channel', 'paths']),
      annotations: WRITE_TOOL,
      handler: (a, caller) => {
        const real = realPatterns(a.paths, s.options.projectDir);
        return s.identities.changeAsMember(caller, 'paths_reserve', {
          channel: a.channel, paths: real.paths, exclusive: a.exclusive, reason: a.reason, ttl_minutes: a.ttl_minutes, project_dir: real.projectDir,
        });
      },
    }),
    release: defineTool({
      name: 'opencomms_release',
      title: 'Release files',
      description: 'Give back your reservations: the paths named, or all.',
      inputSchema: objectSchema({
        channel: CHANNEL_ARG,
        paths: { type: 'array', items: { type: 'string', maxLength: 512 }, maxItems: 100 },
      }, ['channel']),
      annotations: IDEMPOTENT_TOOL,
      handler: (a, caller) => {
        const real = Array.isArray(a.paths) ? realPatterns(a.paths, s.options.projectDir) : undefined;
        return s.identities.changeAsMember(caller, 'paths_release', {
          channel: a.channel, paths: real?.paths ?? a.paths, project_dir: real?.projectDir ?? s.options.projectDir,
        });
      },
    }),
  };
}

// The tools, in the fixed tools/list order of INTERFACE.md.
import type { ToolDescriptor } from './registry';
import type { ToolServices } from './services';

const CHANNEL = { type: 'string', description: 'Channel name', maxLength: 64 } as const;

export function buildTools(services: ToolServices): ToolDescriptor[] {
  return [
    {
      name: 'opencomms_status',
      title: 'Status',
      description: 'Show your channels, their members, your pending mail and recent errors.',
      inputSchema: { type: 'object', properties: { channel: CHANNEL }, additionalProperties: false },
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler: (args) => services.status(args as { channel?: string }),
    },
  ];
}

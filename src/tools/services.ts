// What tool handlers need from the rest of the program: the store, the
// pinned identity and the project facts. Everything is opened on first use.
import type { ToolResult } from '../engine/types';

export interface ToolServicesOptions {
  projectDir: string;
  host: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

export class ToolServices {
  constructor(readonly options: ToolServicesOptions) {}

  describeIdentity(): string {
    const raw = this.options.env.OPENCOMMS_MEMBER_ID;
    return raw && raw.trim() !== '' ? `member ${raw.trim()}` : 'no OPENCOMMS_MEMBER_ID';
  }

  status(_args: { channel?: string }): ToolResult {
    return { ok: true, message: 'OpenComms status.', data: { channels: [], pending_messages: 0, errors: [] } };
  }
}

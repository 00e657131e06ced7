// `opencomms status`: the operator's full view of a project, read lock-free.
import * as engine from '../engine';
import { openStore } from '../store';

export interface StatusOptions {
  projectDir: string;
  json: boolean;
  write: (text: string) => void;
}

interface MemberView { session_id: string; role: string; stale: boolean; host: string; delivery_mode: string }
interface ChannelView {
  name: string; id: string; paused: boolean; members: MemberView[]; queue_lengths?: Record<string, number>;
}

export function runStatus(options: StatusOptions): number {
  const store = openStore({ projectDir: options.projectDir });
  const report = store.read((state, ctx) => engine.status(state, { session_id: null }, ctx));
  if (options.json) {
    options.write(`${JSON.stringify({ project: options.projectDir, ...report }, null, 2)}\n`);
    return report.ok ? 0 : 1;
  }
  const data = (report.data ?? {}) as { channels?: ChannelView[]; pending_messages?: number; errors?: { at: number; message: string }[] };
  const lines = [`OpenComms project ${options.projectDir}`];
  const channels = data.channels ?? [];
  if (channels.length === 0) lines.push('No channels yet. An agent creates one with opencomms_create.');
  for (const channel of channels) {
    lines.push(`channel ${channel.name} (${channel.id})${channel.paused ? ' [paused]' : ''}`);
    for (const member of channel.members) {
      const pending = (channel.queue_lengths && engine.ownValue(channel.queue_lengths, member.session_id)) ?? 0;
      lines.push(
        `  ${member.role.padEnd(16)} ${member.session_id}  host ${member.host}, ${member.delivery_mode}` +
          `${member.stale ? ', stale' : ''}, ${pending} pending`,
      );
    }
  }
  lines.push(`pending messages: ${data.pending_messages ?? 0}`);
  const errors = data.errors ?? [];
  if (errors.length > 0) {
    lines.push('recent errors:');
    for (const e of errors.slice(-10)) lines.push(`  ${engine.formatIsoTime(e.at)} ${e.message}`);
  }
  options.write(`${lines.join('\n')}\n`);
  return 0;
}

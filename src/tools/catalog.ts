// The 20 tools, in the fixed tools/list order of INTERFACE.md. Descriptions
// are short on purpose: the whole list is read into the model's context.
// Each group of tools lives in a file of its own; this file fixes their order
// and the one way into every handler.
import { explainMissingChannel } from '../engine';
import { channelTools } from './channel-tools';
import type { CallerTool } from './define-tool';
import { entryTools } from './entry-tools';
import { messageTools } from './message-tools';
import { DIRECT_CALL, type ToolCall, type ToolDescriptor } from './registry';
import { reservationTools } from './reservation-tools';
import { sessionTools } from './session-tools';
import { taskTool } from './task-tool';
import type { ToolServices } from './services';

export function buildTools(s: ToolServices): ToolDescriptor[] {
  const entry = entryTools(s);
  const mail = messageTools(s);
  const channelOps = channelTools(s);
  const sessions = sessionTools(s);
  const files = reservationTools(s);
  const tools: CallerTool[] = [
    entry.create, entry.join,
    mail.send, mail.inbox, mail.pull, mail.status, mail.history,
    channelOps.pause, channelOps.resume, channelOps.disconnect, channelOps.updateRole, channelOps.kick, channelOps.timer,
    sessions.save, sessions.resume, sessions.delete, sessions.archive,
    files.reserve, files.release,
    taskTool(s),
  ];
  // A call waits for the pulls whose replies went out before it to commit (or
  // give back) their mail, so what it reads or changes is as the host saw it.
  // Each call then finds who is calling (its host session's member, found
  // once and then kept) and hands that on, so every handler acts for the
  // member of its own call. That member is present while this process runs
  // (engine/presence): the first call records it, later ones renew when due.
  return tools.map((tool) => ({
    ...tool,
    handler: async (args: Record<string, unknown>, call: ToolCall = DIRECT_CALL) => {
      await s.pulls.whenPullsSettled();
      const identity = await s.identities.identify(call);
      if (identity.kind === 'pinned') await s.presence.keep(identity.memberId);
      const result = await tool.handler(args, { call, identity });
      // A channel missing because the state that held it was set aside says so, and where it went (engine/quarantine).
      if (result.ok || result.data?.reason !== 'channel_not_found') return result;
      const where = s.store.describe().line;
      return s.store.readLatest((state, ctx) => explainMissingChannel(state, result, ctx.now(), where));
    },
  }));
}

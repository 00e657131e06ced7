// The changes of the tools room's callers (see table.ts): what a tool does
// for its caller's member (member-change.ts starts each with the same check),
// and the tool server's own upkeep.
import { channelToolChanges } from './tools-channel';
import { sessionToolChanges } from './tools-session';
import { upkeepToolChanges } from './tools-upkeep';
import { workToolChanges } from './tools-work';

export const toolsChanges = { ...sessionToolChanges, ...channelToolChanges, ...workToolChanges, ...upkeepToolChanges };

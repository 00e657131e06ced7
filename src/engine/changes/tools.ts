// The changes of the tools room's callers (see table.ts).
export const toolsChanges = {};

// The changes of the cli room's callers (see table.ts).
export const cliChanges = {};

// The changes of the hooks room's callers (see table.ts).
export const hooksChanges = {};

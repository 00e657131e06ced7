// The changes of the push room's callers (see table.ts).
export const pushChanges = {};

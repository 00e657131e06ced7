// A test's own change to a state it sets up: code of the test's, run under
// the store's lock in this process (LocalEdits). Product code never does
// this: it names its changes (store.mutate('<name>', args)).
import type { ToolResult } from '../../src/engine/types';
import type { Store } from '../../src/store';
import type { LocalChange, LocalEdits } from '../../src/store/change-call';

export function edit<T extends ToolResult>(store: Store, fn: LocalChange<T>): Promise<T> {
  const local = store as Store & Partial<LocalEdits>;
  if (typeof local.editLocally !== 'function') throw new Error('this store takes no local edits: give the test a file or Redis store');
  return local.editLocally(fn);
}

// How a store is named to people and in JSON: one description per store,
// made from the selection alone, so serve can print it before anything opens.
import { join, resolve as resolvePath } from 'node:path';
import type { StoreSelection } from './redis/config';
import { displayUrl } from './redis/url';
import { STATE_DIR_NAME } from '../local/state-dir';

/**
 * `store` in `status --json` and `doctor --json`: never a password (the URL
 * holds none). A bare `redis` is a Redis store whose configuration failed.
 */
export type StoreJson = { kind: 'file' } | { kind: 'redis'; url: string; project_id: string } | { kind: 'redis' };

/** A store as the commands that print it name it. */
export interface StoreDescription {
  /** What follows `store: ` in status (and doctor's first store line): `file <state dir>`, or `redis <url>, project <id>`. */
  line: string;
  json: StoreJson;
  /** The store in the watch's header: `file`, or `<url>, project <id>`. */
  label: string;
  /** What serve's start-up line adds after the project: nothing for files. */
  banner: string;
  /**
   * The shared store, as install writes it into host configs and peers know
   * the project; undefined for this machine's files.
   */
  shared?: { url: string; projectId: string };
  /** Where channels live (Store.location): the project folder, or `redis:<project id>`. */
  location: string;
}

/** Describes the store `selection` names for `projectDir` (the file store when absent), without opening it. */
export function describeSelection(selection: StoreSelection | undefined, projectDir: string): StoreDescription {
  if (selection?.kind !== 'redis') {
    const folder = resolvePath(projectDir);
    return { line: `file ${join(folder, STATE_DIR_NAME)}`, json: { kind: 'file' }, label: 'file', banner: '', location: folder };
  }
  const { config } = selection;
  const url = displayUrl(config);
  return {
    line: `redis ${url}, project ${config.projectId}`,
    json: { kind: 'redis', url, project_id: config.projectId },
    label: `${url}, project ${config.projectId}`,
    banner: ` (state in the Redis store ${config.keyPrefix.slice(0, -1)})`,
    shared: { url, projectId: config.projectId },
    location: `redis:${config.projectId}`,
  };
}

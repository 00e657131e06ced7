// Which store the host configs install writes name: --store (checked as the
// store checks it, short of the password, which install never needs or
// writes), or the one the configs name already. A re-install without --store
// keeps a store: quietly dropping it would send that host's sessions back to
// this machine's files and split the project without anyone noticing.
// `--store file` is how to take it out.
import { resolveStoreTarget, type StoreEnv } from '../store';
import { StoreFault } from '../files/faults';
import { InstallFailure } from './install-common';
import { shellQuote, type HostName, type StoreChoice } from './launch';

export interface StoreDecision {
  /** The store the written configs name; undefined: the project's files. */
  choice?: StoreChoice;
  /** From --store, kept from the configs, taken out with --store file, or none at all. */
  how: 'flag' | 'kept' | 'removed' | 'none';
  /** The store the configs named before, when --store file takes it out. */
  previous?: StoreChoice;
}

/** Decides the store: `flag` is --store as given, `existing` what the host's configs name now. */
export function chooseStore(flag: string | undefined, env: StoreEnv, existing: readonly (StoreChoice | undefined)[]): StoreDecision {
  const previous = existing.find((store) => store !== undefined);
  let decision: StoreDecision;
  if (flag === undefined) {
    decision = previous ? { choice: previous, how: 'kept' } : { how: 'none' };
  } else {
    let target: ReturnType<typeof resolveStoreTarget>;
    try {
      // Only OPENCOMMS_PROJECT_ID comes from the environment; --store names the store.
      target = resolveStoreTarget({ flag, env: { OPENCOMMS_PROJECT_ID: env.OPENCOMMS_PROJECT_ID } });
    } catch (err) {
      if (!(err instanceof StoreFault)) throw err;
      throw new InstallFailure(`--store: ${err.code}: ${err.message.replace(/\.$/, '')}. Nothing was changed.`, 2);
    }
    decision = target === undefined
      ? (previous ? { how: 'removed', previous } : { how: 'none' })
      : { choice: { url: target.url, projectId: target.projectId }, how: 'flag' };
  }
  return decision;
}

/** The store line(s) of the install output: what the configs name, and which variables the user must export. */
export function describeStore(host: HostName, decision: StoreDecision): string {
  if (decision.how === 'none') return '';
  if (decision.how === 'removed') {
    const was = decision.previous!;
    return `store: file (took out ${was.url}, project ${was.projectId}): ${host} uses this project's .opencomms folder again\n`;
  }
  const { url, projectId } = decision.choice!;
  if (host === 'opencode') {
    // The plugin is loaded by OpenCode itself: nothing install writes can carry variables to it.
    return `store: redis ${url}, project ${projectId}: the OpenCode plugin reads the store from OpenCode's own environment; nothing install writes names it.\n` +
      'Before starting opencode, in the environment it starts from:\n' +
      `  export OPENCOMMS_STORE=${shellQuote(url)} OPENCOMMS_PROJECT_ID=${projectId}\n` +
      '  export OPENCOMMS_STORE_PASSWORD_FILE=/path/to/password   # a file only you can read (chmod 600)\n' +
      (url.startsWith('rediss://') ? '  export OPENCOMMS_STORE_CA=/path/to/ca.pem                # only for a private CA\n' : '') +
      'Without them the plugin uses this project\'s .opencomms folder, apart from everyone on the store.\n';
  }
  const kept = decision.how === 'kept' ? ' (kept from the config already here; --store file goes back to this project\'s files)' : '';
  const plain = url.startsWith('redis://') ? '; plain text, loopback only' : '';
  const forwarded = host === 'codex' ? ' The Codex entry forwards these three by name (env_vars), never their values.' : '';
  return `store: redis ${url}, project ${projectId}${kept}${plain}: the ${host} server and hooks written here use it.\n` +
    `The password is in no file install writes. Before starting ${host}, in the environment it starts from:\n` +
    '  export OPENCOMMS_STORE_PASSWORD_FILE=/path/to/password   # a file only you can read (chmod 600)\n' +
    (url.startsWith('rediss://') ? '  export OPENCOMMS_STORE_CA=/path/to/ca.pem                # only for a private CA\n' : '') +
    `(OPENCOMMS_STORE_PASSWORD works too.)${forwarded}\n`;
}

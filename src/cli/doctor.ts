// `opencomms doctor [--fix] [--json]`: checks a project's OpenComms set-up and
// repairs what is safe to repair. Each check says what it saw and what to do.
// The store checks itself (Store.check); doctor adds Node, the members and
// the host configs, and prints the findings.
import { checkUnconfiguredStore, guardCheck, openStore, type Check, type CheckStatus, type StoreCheckReport, type StoreJson, type StoreSelection } from '../store';
import { checkHosts, type HostCheckOptions } from './doctor-hosts';
import { checkMembers } from './doctor-members';
import { checkDelivery } from './doctor-delivery';
import { checkTrust } from './doctor-trust';
import { asInvoked } from './invocation';

export interface DoctorOptions extends HostCheckOptions {
  json: boolean;
  /** The store --store / OPENCOMMS_STORE selects; the project's files when absent. */
  store?: StoreSelection;
  /** Why the selected store could not even be configured (a StoreFault from resolveStoreSelection). */
  storeProblem?: unknown;
  /** OPENCOMMS_STORE_CA, to name it in the TLS line. */
  caPath?: string;
  /** HOME and CODEX_HOME, where the hosts keep the trust and approvals doctor reads; none read without it. */
  env?: NodeJS.ProcessEnv;
  write: (text: string) => void;
  /** How the person starts this program (cli/invocation): the fixes doctor suggests are in that form. */
  command?: string;
}

const MIN_NODE_MAJOR = 18;

/** Runs every check and prints the report. */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  const { projectDir } = options;
  const nodeChecks = guardCheck('node', () => checkNode());
  const storeReport = await checkStore(options);
  const hosts = guardCheck('hosts', () => checkHosts(options, storeReport.store));
  return reportChecks(options, storeReport.store, [
    ...nodeChecks,
    ...storeReport.checks,
    ...guardCheck('members', () => checkMembers(projectDir, storeReport.state)),
    ...hosts,
    ...(options.env === undefined ? [] : guardCheck('host trust', () => checkTrust({ projectDir, env: options.env!, bundlePath: options.bundlePath }))),
    ...(await checkDelivery({ projectDir, env: options.env ?? process.env, earlier: hosts, state: storeReport.state })),
  ]);
}

// A store that could not even be configured is a finding of its own, beside what can still be checked here.
async function checkStore(options: DoctorOptions): Promise<StoreCheckReport> {
  if (options.storeProblem !== undefined) return checkUnconfiguredStore(options.storeProblem, options.projectDir, options.fix);
  const store = openStore({ projectDir: options.projectDir, selection: options.store });
  try {
    return await store.check({ fix: options.fix, caPath: options.caPath });
  } finally {
    await store.close();
  }
}

function reportChecks(options: DoctorOptions, store: StoreJson, found: Check[]): number {
  const command = options.command ?? 'opencomms';
  // Host trust findings carry the command that fixes them as `fix` too (doctor-trust).
  const checks = found.map((c: Check & { fix?: string }) => ({ ...c, message: asInvoked(c.message, command), ...(c.fix === undefined ? {} : { fix: asInvoked(c.fix, command) }) }));
  const isHealthy = !checks.some((c) => c.status === 'fail');
  if (options.json) {
    options.write(`${JSON.stringify({ ok: isHealthy, project: options.projectDir, version: options.version, store, checks }, null, 2)}\n`);
  } else {
    const mark: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' };
    const lines = [`OpenComms doctor ${options.version} for ${options.projectDir}`];
    for (const c of checks) lines.push(`${mark[c.status]} ${c.name}: ${c.message}${c.fixed ? ' (fixed)' : ''}`);
    lines.push(isHealthy ? 'No problems that stop OpenComms from working.' : 'Problems found: see the FAIL lines above.');
    options.write(`${lines.join('\n')}\n`);
  }
  return isHealthy ? 0 : 1;
}

function checkNode(): Check {
  const major = Number(process.versions.node.split('.')[0]);
  return major >= MIN_NODE_MAJOR
    ? { name: 'node', status: 'ok', message: `Node ${process.versions.node}` }
    : { name: 'node', status: 'fail', message: `Node ${process.versions.node} is too old: OpenComms needs Node ${MIN_NODE_MAJOR} or newer.` };
}

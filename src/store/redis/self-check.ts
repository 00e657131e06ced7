// The Redis store's self-check (`opencomms doctor` on a Redis store): one line
// per thing that must hold for the store to work (reachable, TLS,
// authenticated, the server, the round trip, every command the store uses
// allowed on this project's keys, the state loads), each failure with its
// reason code and what to check. It connects with the client the store
// itself uses (RedisClient, configured as createRedisStore does), so what
// doctor sees is what the store will see; every call is bounded by the
// store's timeout (5 s), so doctor never hangs.
import type { State } from '../../engine/types';
import { faultCheck, guardCheck, type Check, type StoreCheckReport } from '../check';
import { DEFAULT_CODEC } from '../default-codec';
import { StoreFault } from '../../files/faults';
import { checkEntries, checkModes } from '../folder-check';
import type { RedisClient } from './client';
import type { RedisStoreConfig } from './config';
import { clientFor, keysOf, type RedisKeys } from './keys';
import { probePermissions } from './permission-probes';
import { RespError, type RespValue } from './resp';
import { describeEndpoint, displayUrl } from './url';

/** PINGs timed for the round-trip line; the median is reported. */
export const RTT_PINGS = 5;
/** A round trip above this is worth a warning: every change costs at least two. */
export const SLOW_RTT_MS = 100;

export interface RedisCheckOptions {
  config: RedisStoreConfig;
  /** The local project folder, whose .opencomms (pins, local files) is checked as with files. */
  projectDir: string;
  /** doctor --fix: narrow modes under .opencomms. */
  fix: boolean;
  /** Where OPENCOMMS_STORE_CA points, to name it in the TLS line. */
  caPath?: string;
  /** A client to use instead of one made from `config` (tests). */
  client?: RedisClient;
}

function passed(name: string, message: string): Check {
  return { name, status: 'ok', message };
}

function asFault(err: unknown): StoreFault {
  if (err instanceof StoreFault) return err;
  return new StoreFault('store_protocol_error', `The Redis store answered in a way doctor could not read (${err instanceof Error ? err.message : String(err)})`, err, true);
}

function replyText(value: RespValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return undefined;
}

/**
 * Runs every store check, in order (a check that cannot run because an
 * earlier one failed is left out), then what stays on this machine: the
 * state, its lock and its temp files are the server's, but pins and the
 * modes under .opencomms/ are checked as with files.
 */
export async function checkRedisStore(options: RedisCheckOptions): Promise<StoreCheckReport> {
  const { config } = options;
  const keys = keysOf(config.keyPrefix);
  const client = options.client ?? clientFor(config);
  const checks: Check[] = [passed('store', `redis ${displayUrl(config)}, project ${config.projectId}`)];
  let state: State | undefined;
  try {
    state = await runChecks(client, options, keys, checks);
  } finally {
    // Also ends anything the probes left open on the server (a MULTI whose DISCARD was refused is dropped unrun).
    await client.close();
  }
  return { checks: [...checks, ...localChecks(options.projectDir, options.fix)], state, store: { kind: 'redis', url: displayUrl(config), project_id: config.projectId } };
}

/**
 * The findings when the selected store could not even be configured (a
 * StoreFault from resolveStoreSelection), beside what can still be checked
 * on this machine.
 */
export function checkUnconfiguredRedis(problem: unknown, projectDir: string, fix: boolean): StoreCheckReport {
  const first: Check = problem instanceof StoreFault
    ? faultCheck('store', problem)
    : { name: 'store', status: 'fail', message: `the store could not be set up (${problem instanceof Error ? problem.message : String(problem)})` };
  // Named a Redis store: only a Redis store has a configuration that can fail.
  return { checks: [first, ...localChecks(projectDir, fix)], state: undefined, store: { kind: 'redis' } };
}

function localChecks(projectDir: string, fix: boolean): Check[] {
  return [
    { name: 'state', status: 'ok', message: 'in Redis, see the store checks' },
    ...guardCheck('entries', () => checkEntries(projectDir)),
    ...guardCheck('modes', () => checkModes(projectDir, fix)),
  ];
}

async function runChecks(client: RedisClient, options: RedisCheckOptions, keys: RedisKeys, checks: Check[]): Promise<State | undefined> {
  const { config } = options;
  const where = describeEndpoint(config);
  const tlsLine = config.isTls
    ? `on, the server's certificate verified for ${config.host} against ${options.caPath ? `OPENCOMMS_STORE_CA (${options.caPath})` : "this machine's trusted roots"}`
    : 'off: plain text, loopback only (redis:// is refused for any other host)';

  // The first call opens the connection: TCP, TLS, then AUTH (and SELECT). Its
  // fault says which step failed. HELLO without a version changes nothing on
  // the connection and answers the server's name and version; CLIENT INFO
  // names the user the connection is authenticated as. Both are in
  // +@connection, which the store's ACL user has (INFO and ACL WHOAMI are not).
  let hello: RespValue;
  let info: RespValue;
  try {
    [hello, info] = await client.pipeline([['HELLO'], ['CLIENT', 'INFO']]);
  } catch (err) {
    const fault = asFault(err);
    switch (fault.code) {
      case 'store_unreachable':
        checks.push(faultCheck('store reachable', fault));
        break;
      case 'store_tls_failed':
      case 'store_tls_required':
        checks.push(passed('store reachable', `${where} accepts connections`), faultCheck('store tls', fault));
        break;
      case 'store_auth_failed':
        checks.push(passed('store reachable', `${where} answers`), passed('store tls', tlsLine), faultCheck('store auth', fault));
        break;
      default:
        checks.push(passed('store reachable', `${where} accepts connections`), faultCheck('store auth', fault));
    }
    return undefined;
  }
  const user = /(?:^|\s)user=(\S+)/.exec(replyText(info) ?? '')?.[1] ?? config.username ?? 'default';
  checks.push(
    passed('store reachable', `${where} answers`),
    passed('store tls', tlsLine),
    passed('store auth', `authenticated as ACL user ${user}${config.db === 0 ? '' : `, database ${config.db}`}`),
    serverCheck(hello),
  );
  // A fault now (the connection lost, a call past the timeout) fails the
  // line of the step it came in, and ends the store checks there.
  let step = 'store round trip';
  try {
    checks.push(await roundTripCheck(client));
    step = 'store permissions';
    checks.push(await probePermissions(client, config, keys));
    step = 'store state';
    const { check, state } = await stateCheck(client, keys);
    checks.push(check);
    return state;
  } catch (err) {
    checks.push(faultCheck(step, asFault(err)));
    return undefined;
  }
}

// HELLO answers a flat list of names and values: server, version, proto, id, mode, role, modules.
function serverCheck(hello: RespValue): Check {
  if (!Array.isArray(hello)) {
    const why = hello instanceof RespError ? hello.message : 'no answer it could read';
    return { name: 'store server', status: 'warn', message: `could not tell the server's version (HELLO: ${why}); the store needs Redis 7 or Valkey` };
  }
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < hello.length; i += 2) {
    const name = replyText(hello[i]);
    const value = replyText(hello[i + 1]);
    if (name !== undefined && value !== undefined) fields.set(name, value);
  }
  const server = fields.get('server') ?? 'unknown server';
  const version = fields.get('version') ?? 'unknown version';
  const extra = [fields.get('mode'), fields.get('role')].filter((v) => v !== undefined).join(', ');
  const line = `${server} ${version}${extra ? ` (${extra})` : ''}`;
  const major = Number(/^(\d+)\./.exec(version)?.[1] ?? NaN);
  if (server === 'redis' && major < 7) return { name: 'store server', status: 'fail', message: `${line}: the store needs Redis 7 or newer (or Valkey)` };
  return passed('store server', line);
}

async function roundTripCheck(client: RedisClient): Promise<Check> {
  const times: number[] = [];
  for (let i = 0; i < RTT_PINGS; i++) {
    const started = process.hrtime.bigint();
    await client.command(['PING']);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  const shown = median < 10 ? median.toFixed(1) : String(Math.round(median));
  const message = `${shown} ms (median of ${RTT_PINGS} PINGs)`;
  if (median <= SLOW_RTT_MS) return passed('store round trip', message);
  return { name: 'store round trip', status: 'warn', message: `${message}: every change costs at least two round trips, so each tool call waits that long; a closer server helps` };
}

async function stateCheck(client: RedisClient, keys: RedisKeys): Promise<{ check: Check; state: State | undefined }> {
  const [version, text] = await client.pipeline([['GET', keys.version], ['GET', keys.state]]);
  const versionText = replyText(client.check(version!, 'GET'));
  const stateText = replyText(client.check(text!, 'GET'));
  const commits = versionText === undefined ? '' : `, commit ${versionText.split(':')[0]}`;
  if (stateText === undefined) {
    return { check: passed('store state', `no state in ${keys.state} yet${commits} (the first opencomms_create writes it)`), state: undefined };
  }
  let parsed: ReturnType<typeof DEFAULT_CODEC.parseState>;
  try {
    parsed = DEFAULT_CODEC.parseState(stateText, Date.now());
  } catch (err) {
    parsed = { ok: false, reason: `parser failed: ${(err as Error)?.message ?? String(err)}` };
  }
  if (!parsed.ok) {
    return {
      check: {
        name: 'store state',
        status: 'fail',
        message: `${keys.state} cannot be loaded (${parsed.reason.replace(/\s+/g, ' ')}). The next change will preserve it as ${keys.corrupt(0).replace(/0$/, '<time>')} and start empty; restore a good copy first if you have one.`,
      },
      state: undefined,
    };
  }
  const channels = Object.keys(parsed.state.channels).length;
  return { check: passed('store state', `${keys.state} loads (${channels} channel${channels === 1 ? '' : 's'}${commits})`), state: parsed.state };
}

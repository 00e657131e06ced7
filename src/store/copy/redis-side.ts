// The Redis side of `opencomms migrate`: reads a project from its keys as of
// one version, and writes a copy into a project that holds nothing yet with
// one Lua script, so the check that the target is empty and every write are a
// single atomic step no other client can interleave with; then reads it back
// (docs/internals.md "Migrating a project").
import { parseHistoryRecord } from '../../engine/state-shape';
import { parseTaskRecord } from '../../engine/task-shape';
import type { StateCodec } from '../codec';
import { randomHex } from '../../process/crypto';
import { StoreFault } from '../../files/faults';
import { assembleCopy, MigrationRefused, parseArchiveText, type ProjectCopy } from './project-copy';
import { RedisClient } from '../redis/client';
import type { RedisStoreConfig, StoreSelection } from '../redis/config';
import { RECORD_FIELD } from '../redis/history-cache';
import { clientFor, keysOf, type RedisKeys } from '../redis/keys';
import { REMEMBERED_COMMITS } from '../redis/state-commit';
import { textOf } from '../redis/replies';
import { HISTORY_PAGE } from '../redis/state-load';
import { displayUrl } from '../redis/url';
import type { RespArg, RespValue } from '../redis/resp';

/** Each call's bound grows by this much per MiB the copy carries (the script sends it all at once). */
const TIMEOUT_PER_MIB_MS = 1_000;
/** A source that changes under this many reads in a row is refused: a host is still using it. */
const READ_ATTEMPTS = 3;

/**
 * KEYS: 1 version, 2 state, 3 commit tokens, 4 archives, 5.. the history
 *       stream of every channel the source mentions, then the board's
 * ARGV: 1 state text, 2 commit token, 3 tokens remembered, 4 the notices
 *       channel, 5 archive count, then field/value pairs, then per stream:
 *       its record count, the records.
 * Returns {0, {keys already holding data}} without writing anything, or {1, version}.
 * Like every commit it publishes the new version, so servers and watchers
 * already on the (empty) project load the copy at once.
 * A key of another type counts as holding data; any other error (a command the
 * ACL user lacks) is raised as it is. Every key the script writes is looked at
 * before its first write (the commit list too, though tokens alone are no
 * data): Redis does not undo a script's writes when a later one fails.
 */
export const MIGRATE_SCRIPT = `
local function holds(reply)
  if type(reply) == 'table' and reply.err then
    if string.sub(reply.err, 1, 9) == 'WRONGTYPE' then return true end
    error(reply)
  end
  if type(reply) == 'table' then return #reply > 0 end
  return reply ~= false
end
local found = {}
if holds(redis.pcall('GET', KEYS[1])) then found[#found + 1] = KEYS[1] end
if holds(redis.pcall('GET', KEYS[2])) then found[#found + 1] = KEYS[2] end
if holds(redis.pcall('HGETALL', KEYS[4])) then found[#found + 1] = KEYS[4] end
local tokens = redis.pcall('LRANGE', KEYS[3], 0, 0)
if type(tokens) == 'table' and tokens.err and holds(tokens) then found[#found + 1] = KEYS[3] end
for k = 5, #KEYS do
  if holds(redis.pcall('XRANGE', KEYS[k], '-', '+', 'COUNT', 1)) then found[#found + 1] = KEYS[k] end
end
if #found > 0 then return {0, found} end
redis.call('SET', KEYS[2], ARGV[1])
local a = 6
for j = 1, tonumber(ARGV[5]) do
  redis.call('HSET', KEYS[4], ARGV[a], ARGV[a + 1])
  a = a + 2
end
for k = 5, #KEYS do
  local count = tonumber(ARGV[a])
  a = a + 1
  for j = 1, count do
    redis.call('XADD', KEYS[k], '*', '${RECORD_FIELD}', ARGV[a])
    a = a + 1
  end
end
local version = '1:' .. ARGV[2]
redis.call('SET', KEYS[1], version)
redis.call('LPUSH', KEYS[3], ARGV[2])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[3]) - 1)
redis.call('PUBLISH', ARGV[4], version)
return {1, version}
`;

/** The bytes a copy carries: its state, records and archives. */
export function copyBytes(copy: ProjectCopy): number {
  let bytes = Buffer.byteLength(copy.state);
  for (const records of copy.history.values()) for (const r of records) bytes += Buffer.byteLength(r);
  for (const r of copy.board) bytes += Buffer.byteLength(r);
  for (const text of copy.archives.values()) bytes += Buffer.byteLength(text);
  return bytes;
}

/** A client for one migration, made as the Redis store makes its own, with a bound that allows for `bytes`. */
export function migrationClient(config: RedisStoreConfig, bytes: number): RedisClient {
  return clientFor(config, { timeoutMs: config.timeoutMs + Math.ceil(bytes / (1 << 20)) * TIMEOUT_PER_MIB_MS });
}

/**
 * Writes `copy` into an empty Redis project: refused (MigrationRefused
 * `target_has_state`, nothing written) when its state, version, archives or
 * the history of any channel the copy mentions exists already, or its commit
 * list is of another type. Returns the version it set.
 */
export async function writeRedisProject(client: RedisClient, keys: RedisKeys, copy: ProjectCopy): Promise<string> {
  const token = randomHex(12);
  const streams = copy.channelIds;
  const keyList = [keys.version, keys.state, keys.commits, keys.archives, ...streams.map((id) => keys.history(id)), keys.board];
  const args: RespArg[] = [copy.state, token, REMEMBERED_COMMITS, keys.notices, copy.archives.size];
  for (const [id, text] of copy.archives) args.push(id, text);
  for (const id of streams) {
    const records = copy.history.get(id) ?? [];
    args.push(records.length, ...records);
  }
  args.push(copy.board.length, ...copy.board);
  const reply = await client.command(['EVAL', MIGRATE_SCRIPT, keyList.length, ...keyList, ...args]);
  if (!Array.isArray(reply) || (reply[0] !== 0 && reply[0] !== 1)) throw copyProtocolFault(client, 'the migration script answered an unexpected shape');
  if (reply[0] === 0) {
    const found = Array.isArray(reply[1]) ? reply[1].map((k) => textOf(k) ?? '') : [];
    throw new MigrationRefused('target_has_state',
      `The Redis store at ${client.where} already holds project data under ${keys.pattern} (${found.slice(0, 5).join(', ')}${found.length > 5 ? ', …' : ''}), so nothing was written: migrate only fills an empty project. Choose another OPENCOMMS_PROJECT_ID, or delete that project's keys if it is unused, then run it again`);
  }
  return textOf(reply[1]!) ?? '';
}

/** Reads back a copy written as `version`; returns the mismatches (none when it is exact). */
export async function compareRedisProject(client: RedisClient, keys: RedisKeys, copy: ProjectCopy, version: string): Promise<string[]> {
  const mismatches: string[] = [];
  const [nowVersion, state] = await atomically(client, [['GET', keys.version], ['GET', keys.state]]);
  if (textOf(nowVersion!) !== version) {
    mismatches.push(`${keys.version} changed after the copy (another client wrote to the project), so the state could not be compared`);
  } else if (textOf(state!) !== copy.state) {
    mismatches.push(`${keys.state} does not hold the copied state`);
  }
  for (const [id, records] of copy.history) {
    const back = await readStream(client, keys.history(id), records.length);
    if (back.length < records.length || records.some((r, i) => back[i] !== r)) mismatches.push(`${keys.history(id)} does not hold the ${records.length} copied records in order`);
  }
  const board = await readStream(client, keys.board, copy.board.length);
  if (board.length < copy.board.length || copy.board.some((r, i) => board[i] !== r)) mismatches.push(`${keys.board} does not hold the ${copy.board.length} copied tasks in order`);
  const archives = hashOf(await client.command(['HGETALL', keys.archives]));
  for (const [id, text] of copy.archives) {
    if (archives.get(id) !== text) mismatches.push(`the archive ${id} in ${keys.archives} does not read back as copied`);
  }
  return mismatches;
}

/**
 * Reads a Redis project, touching nothing: its state and archives with one
 * atomic read, then the history of every channel they mention, and the
 * version again at the end; a project that changed meanwhile is read again.
 * Undefined when there is no state and no archive.
 */
export async function readRedisProject(client: RedisClient, keys: RedisKeys, codec: StateCodec, now: () => number = Date.now): Promise<ProjectCopy | undefined> {
  for (let attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
    const [version, text, epoch, hash] = await atomically(client, [['GET', keys.version], ['GET', keys.state], ['GET', keys.epoch], ['HGETALL', keys.archives]]);
    const stateText = textOf(text!);
    let skipped = 0;
    const archives = new Map<string, string>();
    for (const [id, value] of hashOf(hash!)) {
      if (parseArchiveText(value, id)) archives.set(id, value);
      else skipped++;
    }
    const board = (await readStream(client, keys.board, Infinity)).filter(isTaskText);
    if (stateText === null && archives.size === 0 && board.length === 0) return undefined;
    const parsed = stateText === null ? undefined : codec.parseState(stateText, now());
    if (parsed && !parsed.ok) {
      throw new MigrationRefused('source_unloadable',
        `${keys.state} on ${client.where} does not load (${parsed.reason}), so nothing was copied: fix that key, or let the next change through the Redis store set it aside (as ${keys.state}.corrupt-<ms>) and start empty, then run migrate again`);
    }
    const state = parsed?.ok ? parsed.state : codec.emptyState();
    const probe = assembleCopy({ state, text: stateText ?? codec.serializeState(state), hasState: stateText !== null, history: new Map(), board, archives, skipped });
    const history = new Map<string, string[]>();
    for (const id of probe.channelIds) {
      const entries = await readStream(client, keys.history(id), Infinity);
      const records = entries.filter((r) => isRecordOf(r, id));
      probe.skipped += entries.length - records.length;
      if (records.length > 0) history.set(id, records);
    }
    const [versionAfter, epochAfter] = await atomically(client, [['GET', keys.version], ['GET', keys.epoch]]);
    if (textOf(versionAfter!) === textOf(version!) && textOf(epochAfter!) === textOf(epoch!)) {
      return { ...probe, history };
    }
  }
  throw new MigrationRefused('source_changed',
    `The Redis project under ${keys.pattern} kept changing while it was read (a host is still using it), so nothing was copied: stop the hosts that use it, then run migrate again`);
}

// The `r` texts of a stream, oldest first, paged, at most `limit` of them.
async function readStream(client: RedisClient, key: string, limit: number): Promise<string[]> {
  const records: string[] = [];
  let from = '-';
  while (records.length < limit) {
    const page = await client.command(['XRANGE', key, from, '+', 'COUNT', HISTORY_PAGE]);
    if (!Array.isArray(page) || page.length === 0) break;
    for (const entry of page) {
      if (!Array.isArray(entry) || entry.length !== 2 || !Array.isArray(entry[1])) continue;
      from = `(${textOf(entry[0]!) ?? ''}`;
      records.push(fieldOf(entry[1], RECORD_FIELD) ?? '');
    }
    if (page.length < HISTORY_PAGE) break;
  }
  return records.slice(0, limit);
}

function isTaskText(text: string): boolean {
  try {
    return parseTaskRecord(JSON.parse(text)) !== undefined;
  } catch {
    return false;
  }
}

function isRecordOf(text: string, channelId: string): boolean {
  try {
    return parseHistoryRecord(JSON.parse(text))?.channel_id === channelId;
  } catch {
    return false;
  }
}

// MULTI, the commands, EXEC in one round trip: their replies as of one instant.
async function atomically(client: RedisClient, commands: RespArg[][]): Promise<RespValue[]> {
  const all: RespArg[][] = [['MULTI'], ...commands, ['EXEC']];
  const replies = await client.pipeline(all);
  replies.forEach((r, i) => client.check(r, String(all[i]![0])));
  const exec = replies[replies.length - 1];
  if (!Array.isArray(exec) || exec.length !== commands.length) throw copyProtocolFault(client, 'EXEC answered an unexpected shape');
  return exec.map((value, i) => client.check(value, String(commands[i]![0])));
}

function fieldOf(fields: RespValue[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (textOf(fields[i]!) === name) return textOf(fields[i + 1]!) ?? undefined;
  return undefined;
}

function hashOf(value: RespValue): Map<string, string> {
  const map = new Map<string, string>();
  if (!Array.isArray(value)) return map;
  for (let i = 0; i + 1 < value.length; i += 2) map.set(textOf(value[i]!) ?? '', textOf(value[i + 1]!) ?? '');
  return map;
}


function copyProtocolFault(client: RedisClient, what: string): StoreFault {
  return new StoreFault('store_protocol_error', `The Redis store at ${client.where}: ${what}`, undefined, true);
}

/** The Redis side of a migration, as `migrate` names and uses it. */
export interface RedisProjectSide {
  url: string;
  projectId: string;
  /** `<url>, project <id>`, as messages name the project. */
  where: string;
  /** The pattern of every key the project has (`oc:{<project id>}:*`). */
  keyPattern: string;
  /** Writes `copy` into the project, which must hold none yet, and reads it back: what did not read back as written. */
  writeAndCompare(copy: ProjectCopy): Promise<string[]>;
  /** The whole project, or undefined when it holds no state and no archive. */
  read(codec: StateCodec): Promise<ProjectCopy | undefined>;
}

/** The Redis project `selection` names, to migrate into or out of; undefined when it names the file store. */
export function redisSideOf(selection: StoreSelection): RedisProjectSide | undefined {
  if (selection.kind !== 'redis') return undefined;
  const { config } = selection;
  const keys = keysOf(config.keyPrefix);
  const url = displayUrl(config);
  return {
    url,
    projectId: config.projectId,
    where: `${url}, project ${config.projectId}`,
    keyPattern: keys.pattern,
    async writeAndCompare(copy) {
      const client = migrationClient(config, copyBytes(copy));
      try {
        const version = await writeRedisProject(client, keys, copy);
        return await compareRedisProject(client, keys, copy, version);
      } finally {
        await client.close();
      }
    },
    async read(codec) {
      const client = migrationClient(config, 0);
      try {
        return await readRedisProject(client, keys, codec);
      } finally {
        await client.close();
      }
    },
  };
}

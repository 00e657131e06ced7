// `opencomms migrate --to redis://…|rediss://…|file`: copies a project from
// the file store into Redis, or from Redis (OPENCOMMS_STORE) into files. The
// target must hold no project yet, the copy is read back and compared before
// success is reported, and the source is left as it was (docs/internals.md
// "Migrating a project"). Pins stay on each machine either way.
import { join } from 'node:path';
import { DEFAULT_CODEC, resolveStoreSelection, type StoreEnv } from '../store';
import { MigrationRefused, readFileProject, redisSideOf, refuseHeldFileTarget, writeFileProject, type ProjectCopy } from '../store/copy';
import { STATE_DIR_NAME } from '../local/state-dir';

export interface MigrateOptions {
  projectDir: string;
  /** `file`, or the Redis URL to copy into (its shape already checked by args.ts). */
  to: string;
  env: StoreEnv;
  write: (text: string) => void;
}

/** Runs the migration; refusals and faults are thrown with a sentence that says what to do. */
export async function runMigrate(options: MigrateOptions): Promise<number> {
  return options.to === 'file' ? intoFiles(options) : intoRedis(options);
}

async function intoRedis(options: MigrateOptions): Promise<number> {
  // The target's configuration (project id, password, TLS) is checked before anything is read.
  const target = redisSideOf(resolveStoreSelection({ flag: options.to, env: options.env }));
  if (target === undefined) throw new Error('migrate --to needs a redis:// or rediss:// URL, or file');
  const stateDir = join(options.projectDir, STATE_DIR_NAME);
  const copy = await readFileProject({ projectDir: options.projectDir, codec: DEFAULT_CODEC });
  if (!copy) {
    throw new MigrationRefused('source_empty',
      `Nothing to migrate: ${stateDir} holds no state.json, history or archive. Run migrate in the project whose .opencomms/ holds the channels (or pass --project DIR)`);
  }
  const mismatches = await target.writeAndCompare(copy);
  const { where } = target;
  refuseMismatches(mismatches, `The copy in ${where} did not read back as written`,
    `The source files were not changed. Check the server, then delete the keys ${target.keyPattern} it wrote and run migrate again`);
  options.write(reportCopy(copy, `Copied the project in ${stateDir} to ${where}, and read it back: identical.`, [
    `pins: left in ${join(stateDir, 'pins')}; they belong to this machine, and the Redis store reads them there`,
    `source: ${stateDir} was not changed`,
  ], `Next: set OPENCOMMS_STORE=${target.url} and OPENCOMMS_PROJECT_ID=${target.projectId} in every host's environment, with the password in OPENCOMMS_STORE_PASSWORD or OPENCOMMS_STORE_PASSWORD_FILE, then restart the hosts. Until then they keep using the files, and what they change there is not in Redis.`));
  return 0;
}

async function intoFiles(options: MigrateOptions): Promise<number> {
  const source = redisSideOf(resolveStoreSelection({ env: options.env }));
  if (source === undefined) {
    throw new MigrationRefused('source_empty',
      'migrate --to file copies a Redis project into this project\'s files, and OPENCOMMS_STORE names no Redis store: set OPENCOMMS_STORE=redis://user@host:port/db (or rediss://…), OPENCOMMS_PROJECT_ID and the password (OPENCOMMS_STORE_PASSWORD or OPENCOMMS_STORE_PASSWORD_FILE), then run it again');
  }
  const stateDir = join(options.projectDir, STATE_DIR_NAME);
  refuseHeldFileTarget({ projectDir: options.projectDir });
  const copy = await source.read(DEFAULT_CODEC);
  const { where } = source;
  if (!copy) {
    throw new MigrationRefused('source_empty',
      `Nothing to migrate: ${where} holds no state and no archive under ${source.keyPattern}. Check OPENCOMMS_PROJECT_ID and the URL in OPENCOMMS_STORE`);
  }
  const mismatches = await writeFileProject({ projectDir: options.projectDir, codec: DEFAULT_CODEC }, copy);
  refuseMismatches(mismatches, `The copy in ${stateDir} did not read back as written`,
    `Redis was not changed. Move state.json, history/ and archives/ out of ${stateDir}, then run migrate again`);
  options.write(reportCopy(copy, `Copied ${where} into ${stateDir}, and read it back: identical.`, [
    `pins: Redis holds none; each machine keeps its own in ${join(STATE_DIR_NAME, 'pins')}, and this one's stay where they are`,
    `source: the keys ${source.keyPattern} were not changed`,
  ], `Next: unset OPENCOMMS_STORE (or set it to file) in every host's environment on this machine, then restart the hosts. Machines still set to ${source.url} keep using Redis, and what they change there is not in these files; once none uses it, its keys can be deleted.`));
  return 0;
}

function refuseMismatches(mismatches: string[], what: string, todo: string): void {
  if (mismatches.length === 0) return;
  const shown = mismatches.slice(0, 3).join('; ') + (mismatches.length > 3 ? `; and ${mismatches.length - 3} more` : '');
  throw new MigrationRefused('copy_mismatch', `${what}: ${shown}. ${todo}`);
}

function reportCopy(copy: ProjectCopy, headline: string, notes: string[], next: string): string {
  let records = 0;
  for (const list of copy.history.values()) records += list.length;
  const lines = [
    headline,
    copy.hasState
      ? `  state: ${countOf(copy.channels, 'channel')}, ${countOf(copy.messages, 'live message')} (${Buffer.byteLength(copy.state)} bytes)`
      : '  state: none in the source; the empty state was written',
    `  history: ${countOf(records, 'record')} in ${countOf(copy.history.size, 'channel')}`,
    `  archives: ${countOf(copy.archives.size, 'saved session')}`,
  ];
  if (copy.board.length > 0) lines.splice(3, 0, `  board history: ${countOf(copy.board.length, 'task')} that left the board`);
  if (copy.skipped > 0) lines.push(`  skipped: ${countOf(copy.skipped, 'source entry', 'source entries')} that do not load (not copied)`);
  for (const note of notes) lines.push(`  ${note}`);
  lines.push(next);
  return `${lines.join('\n')}\n`;
}

function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

// doctor's members check: each member with its host sessions, channels and
// away mark, and the pins of older installs with whether a session has
// adopted them yet.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { formatIsoTime, isBelievableTime, isSpokenFor as isSpokenForIn, SPEAKER_LEASE_MS } from '../engine';
import type { State } from '../engine';
import { type Check } from '../store';
import { listPins, type PinRecord } from '../local/pins';
import { isValidMemberId } from '../local/member-id';
import { STATE_DIR_NAME } from '../local/state-dir';
import { isPidAlive } from '../process/liveness';
import { processHostTag } from '../process/place';

// Members are per agent session (PROTOCOL 6.1): the report lists each member
// with its host sessions, channels and away mark, and the pins of older
// installs with whether a session has adopted them yet.
export function checkMembers(projectDir: string, state: State | undefined): Check[] {
  const checks: Check[] = [];
  const pinsFolder = join(projectDir, STATE_DIR_NAME, 'pins');
  const hasPinsFolder = lstatSync(pinsFolder, { throwIfNoEntry: false })?.isDirectory() === true;
  const pins = hasPinsFolder ? listPins(projectDir) : [];
  if (hasPinsFolder) {
    const files = readdirSync(pinsFolder).filter((f) => f.endsWith('.json'));
    const broken = files.filter((f) => !pins.some((p) => `${p.member_id}.json` === f));
    if (broken.length > 0) {
      checks.push({
        name: 'pins',
        status: 'warn',
        message: `ignored pin file(s) (unreadable, or member_id differs from the file name): ${broken.join(', ')}; delete them or pin again`,
      });
    }
  }
  const links = Object.values(state?.session_links ?? {});
  const unclaimed = unclaimedPinsByHost(pins, state);
  for (const [host, hostPins] of unclaimed) {
    if (hostPins.length < 2) continue;
    checks.push({
      name: `pins ${host}`,
      status: 'warn',
      message: `${hostPins.length} unclaimed pins of host ${host} from older installs: ${hostPins.map((p) => p.member_id).join(', ')}. `
        + `A new ${host} session adopts none of them (several are never guessed between) and gets a member of its own. `
        + `Retire the pins you no longer need by deleting ${hostPins.map((p) => `.opencomms/pins/${p.member_id}.json`).join(', ')} `
        + '(a single one left is adopted by the next session), or set OPENCOMMS_MEMBER_ID to the member a session should be.',
    });
  }
  const ids = new Set<string>(links.map((l) => l.member_id));
  for (const channel of Object.values(state?.channels ?? {})) for (const m of channel.members) ids.add(m.session_id);
  for (const pin of pins) ids.add(pin.member_id);
  for (const entry of state?.errors ?? []) if (entry.member_id !== undefined) ids.add(entry.member_id);
  if (ids.size === 0) {
    return [...checks, { name: 'members', status: 'ok', message: 'none yet: each agent session gets a member of its own on its first OpenComms call' }];
  }
  for (const id of [...ids].sort()) {
    if (!isValidMemberId(id)) continue;
    const memberships = Object.values(state?.channels ?? {}).flatMap((c) => c.members.filter((m) => m.session_id === id).map((m) => ({ c, m })));
    const sessions = links.filter((l) => l.member_id === id);
    const pin = pins.find((p) => p.member_id === id);
    const hosts = [...new Set([...memberships.map(({ m }) => m.host), ...sessions.map((l) => l.host), ...(pin ? [pin.host] : [])])];
    const parts = [`host ${hosts.join(', ') || 'unknown'}`];
    parts.push(memberships.length === 0 ? 'not in a channel yet' : `member of ${memberships.map(({ c }) => c.name).join(', ')}`);
    if (sessions.length > 0) {
      const seen = Math.max(...sessions.map((l) => l.last_seen));
      parts.push(`${sessions.length} host session link(s), last seen ${formatIsoTime(seen)}`);
    } else if (pin && isPinSpokenFor(state, pin.member_id)) {
      parts.push('pinned by an older install; a live process speaks as it through OPENCOMMS_MEMBER_ID, so no new session adopts it');
    } else if (pin && (unclaimed.get(pin.host)?.length ?? 0) > 1) {
      parts.push(`pinned by an older install; not adopted: host ${pin.host} has several unclaimed pins (see pins ${pin.host})`);
    } else if (pin) {
      parts.push(`pinned by an older install; the first ${pin.host} session to start adopts it`);
    } else if (!memberships.some(({ m }) => m.host_session_id)) {
      parts.push('no host session linked (set by OPENCOMMS_MEMBER_ID, or linked before this version)');
    }
    const away = memberships.find(({ m }) => m.stale);
    if (away) parts.push(`away since ${away.m.stale_at === null ? 'an unknown time' : formatIsoTime(away.m.stale_at)} (its session ended; its mail waits for it)`);
    const problem = [...(state?.errors ?? [])].reverse().find((e) => e.member_id === id);
    if (problem) parts.push(`last problem (${formatIsoTime(problem.at)}): ${problem.message}`);
    checks.push({ name: `member ${id}`, status: problem ? 'warn' : 'ok', message: parts.join('; ') });
  }
  return checks;
}

/** Whether a live process speaks as `memberId` through OPENCOMMS_MEMBER_ID (engine/speaker-leases); a lease ending past its lifetime is over. */
function isPinSpokenFor(state: State | undefined, memberId: string): boolean {
  if (state === undefined) return false;
  const now = Date.now();
  return isSpokenForIn(state, memberId, (lease) => isBelievableTime(lease.until, now, SPEAKER_LEASE_MS)
    && (lease.host === processHostTag() ? isPidAlive(lease.pid) : now <= lease.until));
}

/** The pins of each host that a new session could adopt: no session linked to them, no live process speaking as them. */
function unclaimedPinsByHost(pins: readonly PinRecord[], state: State | undefined): Map<string, PinRecord[]> {
  const taken = new Set(Object.values(state?.session_links ?? {}).map((l) => l.member_id));
  const byHost = new Map<string, PinRecord[]>();
  for (const pin of pins) {
    if (taken.has(pin.member_id) || isPinSpokenFor(state, pin.member_id)) continue;
    byHost.set(pin.host, [...(byHost.get(pin.host) ?? []), pin]);
  }
  return byHost;
}

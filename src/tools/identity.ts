// Who this server process speaks as. The identity comes from the environment
// or from this host's single pin file, never from a tool argument, and once
// found it is fixed for the life of the process.
import { isValidMemberId, listPins } from '../store';

export type Identity =
  | { kind: 'pinned'; memberId: string; source: 'env' | 'pin' }
  | { kind: 'unpinned'; problem: string };

const HOW_TO_PIN = 'Run `opencomms pin --host <host>` (or `opencomms install <host>`) to mint a member id, and put it in OPENCOMMS_MEMBER_ID.';

/** Checks OPENCOMMS_MEMBER_ID; undefined when it is unset or blank. */
export function identityFromEnv(raw: string | undefined): Identity | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const id = raw.trim();
  if (!isValidMemberId(id as unknown)) {
    const shown = id.length > 40 ? `${id.slice(0, 40)}...` : id;
    return {
      kind: 'unpinned',
      problem: `OPENCOMMS_MEMBER_ID ${JSON.stringify(shown)} is not a member id (1-64 letters, digits, _ or -, starting with a letter or digit); placeholders are refused. ${HOW_TO_PIN}`,
    };
  }
  return { kind: 'pinned', memberId: id, source: 'env' };
}

/** The single pin of `host`, or why there is none to use. Several pins are never guessed between. */
export function identityFromPins(projectDir: string, host: string): Identity {
  const pins = listPins(projectDir, host);
  if (pins.length === 1) return { kind: 'pinned', memberId: pins[0].member_id, source: 'pin' };
  if (pins.length === 0) {
    return { kind: 'unpinned', problem: `No OPENCOMMS_MEMBER_ID is set and no pin exists for host "${host}". ${HOW_TO_PIN}` };
  }
  return {
    kind: 'unpinned',
    problem: `No OPENCOMMS_MEMBER_ID is set and host "${host}" has ${pins.length} pins (${pins.map((p) => p.member_id).join(', ')}); set OPENCOMMS_MEMBER_ID to the one this server should speak as.`,
  };
}

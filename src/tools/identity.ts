// Who this server process speaks as. The identity comes from the environment
// or from this host's single pin file, never from a tool argument, and once
// found it is fixed for the life of the process.
import { listPins } from '../local/pins';
import { HOW_TO_PIN, type Identity } from './env-identity';

export { identityFromEnv, type Identity } from './env-identity';

const NO_SESSION = 'This server cannot tell which agent session it serves: its host gave it no session id, and its parent process could not be read.';

/** The single pin of `host`, or why there is none to use. Several pins are never guessed between. */
export function identityFromPins(projectDir: string, host: string): Identity {
  const pins = listPins(projectDir, host);
  if (pins.length === 1) return { kind: 'pinned', memberId: pins[0].member_id, source: 'pin' };
  if (pins.length === 0) {
    return { kind: 'unpinned', problem: `${NO_SESSION} No OPENCOMMS_MEMBER_ID is set and no pin exists for host "${host}". ${HOW_TO_PIN}` };
  }
  return {
    kind: 'unpinned',
    problem: `${NO_SESSION} No OPENCOMMS_MEMBER_ID is set and host "${host}" has ${pins.length} pins (${pins.map((p) => p.member_id).join(', ')}); set OPENCOMMS_MEMBER_ID to the one this server should speak as.`,
  };
}

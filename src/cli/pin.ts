// `opencomms pin`: mint (or take) a member id and record it as this host's pin.
import { imitatesPersonId } from '../engine';
import { writePin } from '../local/pins';
import { isValidMemberId } from '../local/member-id';
import { randomHex } from '../process/crypto';
import { UsageError } from './args';

export interface PinOptions {
  projectDir: string;
  host: string;
  id?: string;
  write: (text: string) => void;
}

/** `sess_` and 24 hex characters from 12 random bytes. */
export function mintMemberId(): string {
  return `sess_${randomHex(12)}`;
}

export function runPin(options: PinOptions): number {
  const id = options.id?.trim() ?? mintMemberId();
  if (!isValidMemberId(id as unknown)) {
    throw new UsageError(`--id ${JSON.stringify(id)} is not a member id: use 1-64 letters, digits, _ or -, starting with a letter or digit.`);
  }
  if (imitatesPersonId(id)) {
    throw new UsageError(`--id ${JSON.stringify(id)} reads as the person's id ("person" and a separator, in any letter case), which is reserved for a person at a terminal (opencomms say), who is never pinned; choose another id.`);
  }
  writePin(options.projectDir, { member_id: id, host: options.host });
  options.write(`${id}\n`);
  return 0;
}

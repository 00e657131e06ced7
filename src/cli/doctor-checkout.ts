// doctor's check that every host config starts this checkout's server and
// hooks: in a clone of a project whose configs name folders absolutely, they
// would start the first checkout's, on its store, and the two trees' mail and
// reservations would mix. Each such line is a FAIL; --fix points it here.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from '../store';
import { scanCheckoutPaths, type EntryPlace, type ForeignLine, type ForeignPath } from '../hosts/checkout-paths';
import { readUserFile, writeUserFile, type UserFile } from '../hosts/user-file';

/** One config file to look through, and where its server entry is (none for a hooks-only file). */
export interface CheckoutFile {
  host: string;
  file: string;
  place?: EntryPlace;
  /** The install arguments that rewrite it. */
  install: string;
}

/** The finding's reason, for `doctor --json`. */
export const OTHER_CHECKOUT_REASON = 'config_in_other_checkout';

/** A finding with the command that fixes it (reportChecks shows it as invoked). */
type CheckoutCheck = Check & { fix?: string };

function readFile(projectDir: string, file: string): UserFile | undefined {
  try {
    const user = readUserFile(projectDir, join(projectDir, file));
    return user.text === undefined ? undefined : user;
  } catch {
    return undefined; // a link install will not follow: the host checks name it
  }
}

function describeForeignPath(p: ForeignPath): string {
  const gone = existsSync(p.path) ? '' : ' (which does not exist)';
  return `${p.kind === 'project' ? 'names --project ' : 'starts '}${p.path}${gone}`;
}

function checkoutOwners(line: ForeignLine): string {
  const named = [...new Set(line.paths.map((p) => p.checkout ?? ''))];
  return named.map((c) => (c === '' ? 'no checkout doctor could find' : `the checkout ${c}`)).join(' and ');
}

function repointedPaths(line: ForeignLine): string {
  return line.paths.map((p) => (p.kind === 'project' ? `--project ${p.replacement}` : p.replacement)).join(', ');
}

/** The FAIL (or, fixed, the ok) lines for one file's foreign paths. */
function lineChecks(projectDir: string, config: CheckoutFile, lines: ForeignLine[], fixed: boolean, tried: boolean): CheckoutCheck[] {
  return lines.map((line) => {
    const name = `${config.host} (${config.file} line ${line.line})`;
    const what = `${config.file} line ${line.line} ${line.paths.map(describeForeignPath).join(' and ')}, of ${checkoutOwners(line)}`;
    const hasPlace = line.paths.every((p) => p.replacement !== undefined);
    if (fixed && hasPlace) return { name, status: 'ok', fixed: true, message: `${what}; now ${repointedPaths(line)}, of this checkout` };
    // A file the splice could not edit in place is left to install, as is a path with no place in this checkout.
    const fix = hasPlace && !tried ? 'opencomms doctor --fix' : `opencomms install ${config.install}`;
    const how = !hasPlace ? `this checkout has no server copy to point it at: run \`${fix}\``
      : tried ? `doctor could not edit the file in place: run \`${fix}\`` : `run \`${fix}\` to point it at ${repointedPaths(line)}`;
    return {
      name, status: 'fail', reason: OTHER_CHECKOUT_REASON, fix,
      message: `${what}, not this checkout (${projectDir}): sessions here would share that checkout's mail and reservations; ${how}.`,
    };
  });
}

/**
 * Every line of the host configs that starts a server or hook outside this
 * checkout; with `fix`, each file is rewritten in place (only those paths change)
 * before the other host checks read it.
 */
export function checkCheckouts(projectDir: string, files: readonly CheckoutFile[], fix: boolean): CheckoutCheck[] {
  const checks: CheckoutCheck[] = [];
  for (const config of files) {
    const user = readFile(projectDir, config.file);
    if (user === undefined) continue;
    let scan;
    try {
      scan = scanCheckoutPaths(projectDir, user.text!, config.place);
    } catch {
      continue; // a file the host checks already name as unreadable
    }
    if (scan.lines.length === 0) continue;
    const wrote = fix && scan.fixed !== undefined && scan.fixed !== user.text;
    if (wrote) writeUserFile(user, scan.fixed!);
    checks.push(...lineChecks(projectDir, config, scan.lines, wrote, fix));
  }
  return checks;
}

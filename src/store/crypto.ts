// node:crypto pulls in the stream modules and costs several milliseconds to
// load, so it is required on first use (after the server's first reply), not
// at start-up.
let loaded: typeof import('node:crypto') | undefined;

function crypto(): typeof import('node:crypto') {
  loaded ??= require('node:crypto') as typeof import('node:crypto');
  return loaded;
}

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  return crypto().randomBytes(bytes).toString('hex');
}

/** The sha256 of `text` (UTF-8) as lowercase hex. */
export function sha256Hex(text: string): string {
  return crypto().createHash('sha256').update(text, 'utf8').digest('hex');
}

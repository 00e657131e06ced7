// What a child process prints, split into whole lines as they arrive.
import type { Readable } from 'node:stream';

/** Calls `onLine` with each whole line `stream` gives (without its newline), in order. */
export function onLines(stream: Readable, onLine: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      onLine(line);
    }
  });
}

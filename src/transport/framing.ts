// Bytes to lines for newline-delimited JSON-RPC. Pure: no I/O.

/** Largest accepted frame in UTF-8 bytes, not counting the `\n` or a `\r` before it. */
export const MAX_FRAME_BYTES = 1_048_576;

export type Frame = { kind: 'line'; text: string } | { kind: 'oversized'; bytes: number };

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into lines. A line longer than MAX_FRAME_BYTES is not
 * kept: once it crosses the limit the splitter drops its bytes as they arrive
 * and reports the line once, as 'oversized', when its `\n` comes. Memory
 * therefore never holds more than one frame (plus one byte for a trailing CR).
 */
export class LineSplitter {
  private pieces: Buffer[] = [];
  private held = 0; // bytes in `pieces`
  private dropped = 0; // bytes of the current line thrown away after an overflow
  private isOverflowing = false;

  constructor(private readonly maxBytes: number = MAX_FRAME_BYTES) {}

  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    while (start < chunk.length) {
      const lf = chunk.indexOf(LF, start);
      const end = lf === -1 ? chunk.length : lf;
      this.take(chunk.subarray(start, end));
      if (lf === -1) break;
      const frame = this.finishLine();
      if (frame) frames.push(frame);
      start = lf + 1;
    }
    return frames;
  }

  /** The stream ended: a last line without `\n` still counts. */
  end(): Frame[] {
    if (this.held === 0 && !this.isOverflowing) return [];
    const frame = this.finishLine();
    return frame ? [frame] : [];
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.isOverflowing) {
      this.dropped += part.length;
      return;
    }
    // One spare byte: a CR that ends a line of exactly maxBytes is not content.
    if (this.held + part.length > this.maxBytes + 1) {
      this.dropped = this.held + part.length;
      this.pieces = [];
      this.held = 0;
      this.isOverflowing = true;
      return;
    }
    // Copy: the caller's chunk buffer may be pooled and reused.
    this.pieces.push(Buffer.from(part));
    this.held += part.length;
  }

  private finishLine(): Frame | undefined {
    if (this.isOverflowing) {
      const bytes = this.dropped;
      this.isOverflowing = false;
      this.dropped = 0;
      return { kind: 'oversized', bytes };
    }
    let line = this.pieces.length === 1 ? this.pieces[0] : Buffer.concat(this.pieces, this.held);
    this.pieces = [];
    this.held = 0;
    if (line === undefined) return undefined;
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    if (line.length > this.maxBytes) return { kind: 'oversized', bytes: line.length };
    const text = line.toString('utf8');
    if (text.trim() === '') return undefined;
    return { kind: 'line', text };
  }
}

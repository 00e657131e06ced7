// Where each value of a JSONC document sits in its text: a span parser over
// the blanked text (comments and trailing commas made spaces), which
// JSON.parse has already accepted.
import { stringEnd } from './jsonc';

/** One member of an object (with its key) or one element of an array. */
export interface Item {
  key?: string;
  /** Where the item starts: its key, or its value in an array. */
  start: number;
  node: Node;
}

export type Container = { kind: 'object' | 'array'; start: number; end: number; items: Item[] };
export type Node = Container | { kind: 'scalar'; start: number; end: number };

// A span parser over blanked (plain JSON) text that JSON.parse has already accepted.
export class SpanParser {
  pos = 0;
  constructor(private readonly text: string) {}

  skip(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  value(): Node {
    this.skip();
    const start = this.pos;
    const ch = this.text[start];
    if (ch === '{' || ch === '[') return this.container(ch === '{' ? 'object' : 'array');
    if (ch === '"') this.pos = stringEnd(this.text, start);
    else while (this.pos < this.text.length && !/[\s,\]}]/.test(this.text[this.pos])) this.pos++;
    if (this.pos === start) throw new Error(`no value at offset ${start}`);
    return { kind: 'scalar', start, end: this.pos };
  }

  container(kind: 'object' | 'array'): Container {
    const start = this.pos;
    const close = kind === 'object' ? '}' : ']';
    this.pos++;
    const items: Item[] = [];
    this.skip();
    while (this.text[this.pos] !== close) {
      if (this.pos >= this.text.length) throw new Error('unterminated container');
      const itemStart = this.pos;
      let key: string | undefined;
      if (kind === 'object') {
        this.pos = stringEnd(this.text, itemStart);
        key = JSON.parse(this.text.slice(itemStart, this.pos)) as string;
        this.skip();
        this.pos++; // ':'
      }
      items.push({ key, start: itemStart, node: this.value() });
      this.skip();
      if (this.text[this.pos] === ',') this.pos++;
      this.skip();
    }
    this.pos++;
    return { kind, start, end: this.pos, items };
  }
}

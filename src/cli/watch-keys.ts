// The person's keys in `opencomms watch` on a terminal. The view stays what
// it is for scripts (--json and plain lines read no keys); on a terminal a
// person can select a row and act as their person member: write in a
// channel, answer a message, pause or resume a channel, release a
// reservation; and read the selected message's text (v), which only shows it. Each action is the same engine change as the matching command
// (say, pause, resume, reservations --release), run under the store's lock,
// and like those it acts only from the person's terminal, which it records.
import * as engine from '../engine';
import type { Store } from '../store';
import type { ChangeArgs } from '../engine/changes/table';
import type { PersonHere } from './person';
import { printable, selectableItems, textPanel, type WatchItem, type WatchView } from '../watch';

export const KEY_HELP = 'keys: j/k or arrows select, v show/hide the message\'s text, w write in the channel, r reply to the message, '
  + 'p pause/resume the channel, x release the reservation, Esc cancel, ? this help, q quit';

export interface WatchKeysOptions {
  store: Store;
  person: string;
  projectId: string;
  /** The view as last taken (people watch). */
  view: () => WatchView;
  redraw: () => void;
  quit: () => void;
  /** Whether actions may run here and from which terminal (checkPersonHere); a refusal is said instead of acting. */
  here: PersonHere;
  /** How the person starts this program, for the commands the screen suggests. */
  command: string;
}

/** The changes the keys make: the ones the say, pause, resume and reservations --release commands make. */
type PersonChange = 'person_say' | 'person_set_pause' | 'person_release';

type Mode =
  | { kind: 'browse' }
  | { kind: 'prompt'; label: string; input: string; submit: (text: string) => Promise<string> }
  | { kind: 'confirm'; label: string; accept: () => Promise<string> };

/** One key of a chunk of terminal input: a named key, or one character. */
export function splitKeys(chunk: string): string[] {
  const keys: string[] = [];
  for (let i = 0; i < chunk.length;) {
    const arrow = /^\u001b[[O]([ABCD])/.exec(chunk.slice(i));
    if (arrow) {
      keys.push({ A: 'up', B: 'down', C: 'right', D: 'left' }[arrow[1] as 'A' | 'B' | 'C' | 'D']);
      i += 3;
      continue;
    }
    const ch = String.fromCodePoint(chunk.codePointAt(i)!);
    keys.push(ch === '\u001b' ? 'escape' : ch === '\r' || ch === '\n' ? 'enter' : ch === '\u007f' || ch === '\b' ? 'backspace' : ch === '\u0003' ? 'ctrl-c' : ch);
    i += ch.length;
  }
  return keys;
}

export class WatchKeys {
  private selected: string | undefined;
  private mode: Mode = { kind: 'browse' };
  private notice: string | undefined;
  private isHelpShown = false;
  /** Whether the selected message's text is shown (v); it follows the selection until hidden. */
  private isTextShown = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: WatchKeysOptions) {}

  /** What the screen draws for the keys: the selected row, the text of the selected message (v), and the footer lines. */
  overlay(): { selected?: string; footer: string[]; panel?: (columns: number, maxLines: number) => string[] } {
    const footer: string[] = [];
    const item = this.isTextShown ? this.current() : undefined;
    const panel = item?.kind === 'mail'
      ? (columns: number, maxLines: number) => textPanel({
        view: this.options.view(), envelope: item.envelope, columns, maxLines, command: this.options.command, person: this.options.person,
      })
      : undefined;
    if (this.isHelpShown) footer.push(KEY_HELP);
    if (this.notice !== undefined) footer.push(this.notice);
    if (this.mode.kind === 'prompt') footer.push(`${this.mode.label}${this.mode.input}_`);
    if (this.mode.kind === 'confirm') footer.push(`${this.mode.label} (y/n)`);
    return { selected: this.selected, footer, ...(panel ? { panel } : {}) };
  }

  /** Handles a chunk of terminal input. */
  feed(chunk: string): void {
    for (const key of splitKeys(chunk)) this.press(key);
    this.options.redraw();
  }

  private items(): WatchItem[] {
    return selectableItems(this.options.view(), this.options.person);
  }

  private current(): WatchItem | undefined {
    return this.items().find((item) => item.key === this.selected);
  }

  private press(key: string): void {
    if (key === 'ctrl-c') return this.options.quit();
    const mode = this.mode;
    if (mode.kind === 'prompt') return this.edit(mode, key);
    if (mode.kind === 'confirm') {
      this.mode = { kind: 'browse' };
      if (key === 'y' || key === 'Y') this.run(mode.accept);
      else this.notice = 'Cancelled.';
      return;
    }
    switch (key) {
      case 'q': return this.options.quit();
      case 'j': case 'down': return this.move(1);
      case 'k': case 'up': return this.move(-1);
      case '?': this.isHelpShown = !this.isHelpShown; return;
      case 'escape': this.notice = undefined; this.isTextShown = false; return;
      case 'v': return this.toggleText();
      case 'w': return this.write();
      case 'r': return this.reply();
      case 'p': return this.togglePause();
      case 'x': return this.release();
      default: return undefined;
    }
  }

  private edit(mode: Extract<Mode, { kind: 'prompt' }>, key: string): void {
    if (key === 'escape') {
      this.mode = { kind: 'browse' };
      this.notice = 'Cancelled.';
    } else if (key === 'enter') {
      this.mode = { kind: 'browse' };
      const text = mode.input;
      if (text.trim() === '') this.notice = 'Nothing sent: the message was empty.';
      else this.run(() => mode.submit(text));
    } else if (key === 'backspace') {
      mode.input = [...mode.input].slice(0, -1).join('');
    } else if (key === '\u0015') {
      mode.input = '';
    } else if (key.length <= 2 && !/^[\u0000-\u001f\u007f-\u009f]$/.test(key)) {
      mode.input += key;
    }
  }

  private move(step: number): void {
    const items = this.items();
    if (items.length === 0) return;
    const at = items.findIndex((item) => item.key === this.selected);
    const next = at === -1 ? (step > 0 ? 0 : items.length - 1) : Math.min(items.length - 1, Math.max(0, at + step));
    this.selected = items[next]!.key;
    this.notice = undefined;
  }

  /** The channel the selected row belongs to; with nothing selected, the project's only channel. */
  private channelOfSelection(): engine.Channel | undefined {
    const item = this.current();
    if (item) return item.channel;
    const channels = [...this.options.view().channels.values()];
    return channels.length === 1 ? channels[0] : undefined;
  }

  /** Whether actions may run; says why not. */
  private isAllowed(): boolean {
    const { here } = this.options;
    if (here.ok) return true;
    this.notice = here.problem;
    return false;
  }

  /** Who acts and from which terminal; only asked once isAllowed said yes. */
  private actor(): engine.PersonActor {
    const { here } = this.options;
    if (!here.ok) throw new Error(here.problem);
    return { person_id: this.options.person, terminal: here.terminal };
  }

  private toggleText(): void {
    if (this.isTextShown) {
      this.isTextShown = false;
      return;
    }
    if (this.current()?.kind !== 'mail') {
      this.notice = 'Select a message first (j/k), then v shows its text.';
      return;
    }
    this.isTextShown = true;
    this.notice = undefined;
  }

  private write(): void {
    const channel = this.channelOfSelection();
    if (!channel) {
      this.notice = 'Select a channel (or a row of it) first: j/k.';
      return;
    }
    if (!this.isAllowed()) return;
    this.mode = {
      kind: 'prompt', label: `say in ${printable(channel.name, 40)} (start with @role for one member): `, input: '',
      submit: (text) => {
        const addressed = /^@(\S+)\s+([\s\S]*)$/.exec(text);
        return this.say({ channel: channel.name, content: addressed ? addressed[2]! : text, to: addressed ? addressed[1]! : null });
      },
    };
  }

  private reply(): void {
    const item = this.current();
    if (item?.kind !== 'mail' || !item.channel) {
      this.notice = 'Select a message first (j/k), then r answers it.';
      return;
    }
    if (!this.isAllowed()) return;
    const { envelope, channel } = item;
    this.mode = {
      kind: 'prompt', label: `reply to ${printable(envelope.sender_role, 24)} on ${printable(channel.name, 40)}: `, input: '',
      submit: (text) => this.say({ channel: channel.name, content: text, reply_to: envelope.message_id }),
    };
  }

  private togglePause(): void {
    const channel = this.channelOfSelection();
    if (!channel) {
      this.notice = 'Select a channel (or a row of it) first: j/k.';
      return;
    }
    if (!this.isAllowed()) return;
    const paused = !channel.paused;
    this.run(() => this.change('person_set_pause', { ...this.actor(), channel: channel.name, paused }));
  }

  private release(): void {
    const item = this.current();
    if (item?.kind !== 'reservation') {
      this.notice = 'Select a reservation first (j/k), then x releases it.';
      return;
    }
    if (!this.isAllowed()) return;
    this.mode = {
      kind: 'confirm', label: `release ${printable(item.reservation.path, 60)} held by ${printable(item.reservation.role, 24)}?`,
      accept: () => this.change('person_release', { ...this.actor(), target: { id: item.id } }),
    };
  }

  private say(fields: { channel: string; content: string; to?: string | null; reply_to?: string | null }): Promise<string> {
    return this.change('person_say', { ...fields, ...this.actor(), project_id: this.options.projectId, worktree: this.options.store.location });
  }

  /** Runs one of the person's changes (engine/changes/cli); the outcome in words. */
  private async change<K extends PersonChange>(name: K, args: ChangeArgs<K>): Promise<string> {
    const result: engine.ToolResult = await this.options.store.mutate(name, args);
    return result.ok ? result.message : `Refused: ${result.message} (reason: ${String(result.data?.reason)})`;
  }

  // Actions run one at a time, in the order pressed; the outcome replaces the notice.
  private run(action: () => Promise<string>): void {
    this.notice = 'Working...';
    this.queue = this.queue.then(action).then(
      (outcome) => { this.notice = outcome; },
      (err: unknown) => { this.notice = `Failed: ${err instanceof Error ? err.message : String(err)}`; },
    ).then(() => this.options.redraw());
  }
}

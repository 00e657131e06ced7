// Claude Code's own inbox (reference E.9): every MCP server of a session gets
// CLAUDE_CODE_MESSAGING_SOCKET (a Unix socket) and CLAUDE_CODE_MESSAGING_TOKEN.
// Two JSON lines written there, an auth line and a user message, start a turn
// in the idle session. We write only the doorbell's words, never peer content.
//
// The frame format is not documented outside the host, so the answers are
// read for what they plainly say: a line that names an error, a refusal or a
// hold (a person must approve the message) is a failure, reported with its
// words; silence, or a close after our lines went out, is taken as accepted.
// A socket that cannot be reached, or closes before it took our lines, fails.
import type { Socket } from 'node:net';

/** node:net, loaded on the first ring: a server that never rings never pays for it. */
function connect(path: string): Socket {
  return (require('node:net') as typeof import('node:net')).connect(path);
}

/**
 * How long the socket has to answer the auth line before the message follows
 * anyway: a host that answers does so within milliseconds. The real Claude
 * Code inbox (2.1.332) never answers, not even a wrong token (its own help
 * text writes both lines back to back), so every notice pays this wait; a
 * refusal that says nothing is caught afterwards instead, by the session not
 * waking (host-door.ts).
 */
export const AUTH_ANSWER_MS = 30;
/** How long we listen after the message for a refusal or a hold. */
export const MESSAGE_ANSWER_MS = 500;
/** The whole exchange, connect to close, is cut off after this. */
const EXCHANGE_MS = 5_000;
/** Answers longer than this are cut in what we report. */
export const MAX_PROBLEM_CHARS = 200;

export type DoorOutcome = { ok: true; answer?: string } | { ok: false; problem: string };

/** Where a session's inbox is, from its environment; undefined when the host gave none. */
export interface InboxAddress {
  socket: string;
  token: string;
}

export function inboxAddressOf(env: NodeJS.ProcessEnv): InboxAddress | undefined {
  const socket = env.CLAUDE_CODE_MESSAGING_SOCKET?.trim();
  const token = env.CLAUDE_CODE_MESSAGING_TOKEN?.trim();
  return socket && token ? { socket, token } : undefined;
}

const NEGATIVE = /\b(error|errors|refus\w*|reject\w*|denied|deny|unauthori[sz]ed|forbidden|invalid|hold|held|fail\w*)\b/i;

/** What an answer line says: a problem in words, or undefined when it says nothing against us. */
export function problemInAnswer(line: string): string | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return NEGATIVE.test(text) ? text.slice(0, MAX_PROBLEM_CHARS) : undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  const words = ['type', 'status', 'result', 'decision', 'state'].map((k) => fields[k]).filter((v): v is string => typeof v === 'string');
  const isNegative = fields.ok === false || fields.accepted === false || fields.error !== undefined || words.some((w) => NEGATIVE.test(w));
  if (!isNegative) return undefined;
  const detail = [fields.error, fields.message, fields.reason].find((v) => typeof v === 'string' && v.trim() !== '');
  const said = typeof detail === 'string' ? detail : JSON.stringify(value);
  return said.slice(0, MAX_PROBLEM_CHARS);
}

/**
 * Writes the auth line, waits briefly for its answer, writes the message
 * (`onWritten` runs once it is handed over) and listens briefly for a
 * refusal or a hold. Never throws.
 */
export function ringInbox(
  address: InboxAddress,
  notice: string,
  timing: { authMs?: number; answerMs?: number } = {},
  onWritten: () => void = () => undefined,
): Promise<DoorOutcome> {
  const authMs = timing.authMs ?? AUTH_ANSWER_MS;
  const answerMs = timing.answerMs ?? MESSAGE_ANSWER_MS;
  return new Promise<DoorOutcome>((resolve) => {
    let socket: Socket;
    let stage: 'connecting' | 'auth' | 'message' | 'done' = 'connecting';
    let buffered = '';
    const answers: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    const overall = setTimeout(() => finish({ ok: false, problem: 'the inbox did not finish the exchange in time' }), EXCHANGE_MS);
    overall.unref();

    const finish = (outcome: DoorOutcome): void => {
      if (stage === 'done') return;
      stage = 'done';
      clearTimeout(overall);
      if (timer) clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const wait = (ms: number, then: () => void): void => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(then, ms);
      timer.unref();
    };
    const writeNotice = (): void => {
      if (stage !== 'auth') return;
      stage = 'message';
      socket.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: notice } })}\n`, () => {
        // Handed to the socket: the session may act on it before we hear back, so whoever waits is told now.
        if (stage === 'message') onWritten();
      });
      wait(answerMs, () => finish({ ok: true, answer: answers.join(' | ') || undefined }));
    };

    try {
      socket = connect(address.socket);
    } catch (err) {
      // A path Node refuses outright (too long for a socket address).
      resolve({ ok: false, problem: `the inbox socket could not be reached: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      stage = 'auth';
      socket.write(`${JSON.stringify({ type: 'auth', token: address.token })}\n`);
      wait(authMs, writeNotice);
    });
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const problem = problemInAnswer(line);
        if (problem !== undefined) {
          finish({ ok: false, problem: `the inbox answered ${stage === 'auth' ? 'the auth line' : 'the notice'}: ${problem}` });
          return;
        }
        if (line.trim() !== '') answers.push(line.trim().slice(0, MAX_PROBLEM_CHARS));
        // The auth line was answered and the answer says nothing against us: the message goes now.
        if (stage === 'auth') writeNotice();
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A hang-up shows as EPIPE or ECONNRESET depending on who was writing: one problem, said in one way.
      if ((err.code === 'EPIPE' || err.code === 'ECONNRESET') && stage !== 'message') return finish({ ok: false, problem: 'the inbox socket closed before it took the notice' });
      const what = err.code === 'ENOENT' || err.code === 'ECONNREFUSED' ? 'refused the connection' : `failed (${err.code ?? err.message})`;
      finish({ ok: false, problem: `the inbox socket ${what}` });
    });
    socket.on('close', () => {
      // A close after the message went out, with nothing said against it, is the end of an accepted exchange.
      if (stage === 'message') {
        const tail = problemInAnswer(buffered);
        finish(tail === undefined ? { ok: true, answer: answers.join(' | ') || undefined } : { ok: false, problem: `the inbox answered the notice: ${tail}` });
      } else finish({ ok: false, problem: 'the inbox socket closed before it took the notice' });
    });
  });
}

/**
 * doctor's look at an inbox: connects and writes the auth line only (never
 * a message, so no turn starts), then waits up to `waitMs` for an answer.
 * Silence with the connection open is no refusal. Never throws.
 */
export function probeInbox(address: InboxAddress, waitMs = AUTH_ANSWER_MS): Promise<DoorOutcome> {
  return new Promise<DoorOutcome>((resolve) => {
    let isDone = false;
    let socket: Socket | undefined;
    const finish = (outcome: DoorOutcome): void => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      socket?.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ ok: true }), waitMs + EXCHANGE_MS);
    timer.unref();
    try {
      socket = connect(address.socket);
    } catch (err) {
      finish({ ok: false, problem: `the inbox socket could not be reached: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket!.write(`${JSON.stringify({ type: 'auth', token: address.token })}\n`);
      const quiet = setTimeout(() => finish({ ok: true }), waitMs);
      quiet.unref();
    });
    socket.on('data', (chunk: string) => {
      const line = chunk.split('\n')[0] ?? '';
      const problem = problemInAnswer(line);
      finish(problem === undefined ? { ok: true, answer: line.trim().slice(0, MAX_PROBLEM_CHARS) } : { ok: false, problem: `the inbox answered the auth line: ${problem}` });
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      finish({ ok: false, problem: err.code === 'ENOENT' || err.code === 'ECONNREFUSED' ? 'the inbox socket refused the connection' : `the inbox socket failed (${err.code ?? err.message})` });
    });
    socket.on('close', () => finish({ ok: false, problem: 'the inbox socket closed without answering the auth line' }));
  });
}

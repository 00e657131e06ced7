// The stdio side of the server: stdin bytes in, one write per message out,
// and an orderly stop on EOF, SIGTERM or SIGINT.
import { LineSplitter, MAX_FRAME_BYTES, type Frame } from './framing';
import { Dispatcher, type MethodTable, type Outgoing } from '../jsonrpc/dispatcher';
import { INTERNAL_ERROR, PARSE_ERROR } from '../jsonrpc/errors';
import type { InputSource } from './input';

/** How long a stop waits for requests already read before it exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;

export interface StdioServerOptions {
  input: InputSource;
  output: NodeJS.WritableStream;
  table: MethodTable;
  log: (line: string) => void;
  /** Called once, after the last reply was flushed. */
  onClosed: () => void;
}

export interface StdioServer {
  /** Sends a server-initiated notification (the doorbell). */
  notify(method: string, params: Record<string, unknown>): void;
  /** Stop reading, answer what was read, flush, then call onClosed. */
  stop(reason: string): void;
}

/**
 * The line for one message. A message JSON cannot hold (a BigInt, a value
 * nested past the stack) must not end the process or cost the client its
 * reply: a reply becomes a small -32603 for the same id, and a notification
 * is dropped. Either way the detail goes to stderr.
 */
function serialize(message: Outgoing, log: (line: string) => void): { text: string; isStandIn: boolean } | undefined {
  try {
    return { text: `${JSON.stringify(message)}\n`, isStandIn: false };
  } catch (err) {
    const isReply = !Object.prototype.hasOwnProperty.call(message, 'method');
    log(`a ${isReply ? 'reply' : 'notification'} could not be serialised (${err instanceof Error ? err.message : String(err)}); ${isReply ? 'sent -32603 instead' : 'dropped'}`);
    if (!isReply) return undefined;
    const error = { code: INTERNAL_ERROR, message: 'Internal error: the reply could not be serialised' };
    const hasId = Object.prototype.hasOwnProperty.call(message, 'id');
    return { text: `${JSON.stringify(hasId ? { jsonrpc: '2.0', id: message.id, error } : { jsonrpc: '2.0', error })}\n`, isStandIn: true };
  }
}

export function serveStdio(options: StdioServerOptions): StdioServer {
  const { input, output, log } = options;
  const splitter = new LineSplitter();
  let isStopping = false;
  let isBlocked = false;

  // `onWritten` runs once the bytes are out of this process (the stream's
  // callback), or with the error that stopped them.
  const write = (message: Outgoing, onWritten?: (err?: Error | null) => void): void => {
    const line = serialize(message, log);
    if (line === undefined || line.isStandIn) {
      // What the handler answered never leaves this process.
      onWritten?.(new Error('the reply could not be serialised'));
      if (line === undefined) return;
    }
    const ok = output.write(line.text, line.isStandIn ? undefined : onWritten);
    if (!ok && !isBlocked && !isStopping) {
      // The host is not reading: stop reading from it until stdout drains.
      isBlocked = true;
      input.pause();
      output.once('drain', () => {
        isBlocked = false;
        if (!isStopping) input.resume();
      });
    }
  };

  const dispatcher = new Dispatcher(options.table, write, log);

  const handleFrames = (frames: Frame[]): void => {
    for (const frame of frames) {
      if (frame.kind === 'line') dispatcher.handleLine(frame.text);
      else {
        log(`dropped an oversized frame of ${frame.bytes} bytes`);
        dispatcher.replyError(PARSE_ERROR, `Oversized message: a frame may hold at most ${MAX_FRAME_BYTES} bytes`);
      }
    }
  };

  const onData = (chunk: Buffer): void => {
    if (isStopping) return;
    handleFrames(splitter.push(chunk));
  };

  /** `isEndOfInput`: the host closed stdin, so a last line without its newline is still a frame. */
  const stop = (reason: string, isEndOfInput = false): void => {
    if (isStopping) return;
    // On a signal, a half-received line is dropped: answering it would only produce a parse error.
    if (isEndOfInput) handleFrames(splitter.end());
    isStopping = true;
    input.stop();
    log(`stopping (${reason}) with ${dispatcher.pending} request(s) still to answer`);
    const grace = setTimeout(() => {
      log(`requests still unanswered after ${SHUTDOWN_GRACE_MS} ms; exiting anyway`);
      options.onClosed();
    }, SHUTDOWN_GRACE_MS);
    grace.unref();
    // Idle includes the after-reply work (commits and requeues of pulled mail).
    void dispatcher.whenIdle().then(() => {
      // An empty write's callback runs after every earlier write has been
      // flushed, or at once with an error when stdout is gone.
      output.write('', () => {
        clearTimeout(grace);
        options.onClosed();
      });
    });
  };

  input.start(
    onData,
    () => stop('stdin closed', true),
    (err) => {
      log(`stdin error: ${err.message}`);
      stop('stdin error');
    },
  );
  output.on('error', (err: Error) => {
    // EPIPE: the host is gone; nothing more can be said to it. Every reply
    // still on its way fails, and the mail it carried must go back before
    // the process ends, so this stops like EOF does (bounded by the grace).
    log(`stdout error: ${err.message}`);
    stop('stdout error');
  });

  return {
    notify(method, params) {
      if (!isStopping) write({ jsonrpc: '2.0', method, params });
    },
    stop,
  };
}

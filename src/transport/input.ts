// Reading stdin with bounded memory. An ordinary stream allocates a fresh
// buffer for every chunk and leaves them to the garbage collector, so a
// 50 MiB line would briefly cost tens of MiB. Reading into one reused buffer
// keeps the cost at that buffer plus the frame being assembled.
import { fstatSync, read } from 'node:fs';

export const READ_BUFFER_BYTES = 65_536;

export interface InputSource {
  start(onChunk: (chunk: Buffer) => void, onEnd: () => void, onError: (err: Error) => void): void;
  pause(): void;
  resume(): void;
  stop(): void;
}

/**
 * Picks the reader for fd 0: a pipe or socket is read through a socket with
 * one reused buffer; a regular file with positional reads into one buffer;
 * anything else (a TTY) through the ordinary stream.
 */
export function stdinInput(fd: number, stream: () => NodeJS.ReadableStream): InputSource {
  let kind: 'pipe' | 'file' | 'other' = 'other';
  try {
    const stat = fstatSync(fd);
    if (stat.isFIFO() || stat.isSocket()) kind = 'pipe';
    else if (stat.isFile()) kind = 'file';
  } catch {
    kind = 'other';
  }
  if (kind === 'pipe') return pipeInput(fd);
  if (kind === 'file') return fdInput(fd, () => streamInput(stream()));
  return streamInput(stream());
}

/**
 * A pipe read with libuv's own non-blocking reads into one buffer. (Blocking
 * reads in the thread pool are no good for a pipe: a read that never returns
 * would hold up process exit.)
 */
export function pipeInput(fd: number): InputSource {
  const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  let socket: import('node:net').Socket | undefined;
  return {
    start(onChunk, onEnd, onError) {
      // `onread` is honoured by the constructor although @types/node lists it only for connect().
      const options = {
        fd,
        readable: true,
        writable: false,
        onread: {
          buffer,
          callback: (bytes: number, chunk: Uint8Array) => {
            onChunk(Buffer.from(chunk.buffer, chunk.byteOffset, bytes));
            return true;
          },
        },
      };
      // Loaded here: only a pipe needs node:net, and it costs start-up time.
      const { Socket } = require('node:net') as typeof import('node:net');
      socket = new Socket(options as ConstructorParameters<typeof Socket>[0]);
      socket.on('end', onEnd);
      socket.on('error', onError);
    },
    pause: () => void socket?.pause(),
    resume: () => void socket?.resume(),
    stop() {
      socket?.removeAllListeners('end');
      socket?.pause();
    },
  };
}

/** Reads a file descriptor with one reused buffer. `fallback` serves when the fd cannot be read this way (EAGAIN). */
export function fdInput(fd: number, fallback: () => InputSource): InputSource {
  const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  let isPaused = false;
  let isReading = false;
  let isStopped = false;
  let delegate: InputSource | undefined;
  let handlers: { onChunk: (c: Buffer) => void; onEnd: () => void; onError: (e: Error) => void } | undefined;

  const next = (): void => {
    if (isPaused || isReading || isStopped || !handlers) return;
    isReading = true;
    read(fd, buffer, 0, buffer.length, null, (err, bytes) => {
      isReading = false;
      if (isStopped || !handlers) return;
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK') {
          // A non-blocking fd (the parent set it so): let a stream poll it.
          delegate = fallback();
          delegate.start(handlers.onChunk, handlers.onEnd, handlers.onError);
          if (isPaused) delegate.pause();
          return;
        }
        if (code === 'EOF') return handlers.onEnd();
        return handlers.onError(err);
      }
      if (bytes === 0) return handlers.onEnd();
      // The consumer copies what it keeps before the buffer is reused.
      handlers.onChunk(buffer.subarray(0, bytes));
      next();
    });
  };

  return {
    start(onChunk, onEnd, onError) {
      handlers = { onChunk, onEnd, onError };
      next();
    },
    pause() {
      isPaused = true;
      delegate?.pause();
    },
    resume() {
      isPaused = false;
      if (delegate) delegate.resume();
      else next();
    },
    stop() {
      isStopped = true;
      delegate?.stop();
    },
  };
}

/** Adapts a readable stream (a TTY, or a test's PassThrough). */
export function streamInput(stream: NodeJS.ReadableStream): InputSource {
  let listeners: { data: (c: Buffer | string) => void; end: () => void; error: (e: Error) => void } | undefined;
  return {
    start(onChunk, onEnd, onError) {
      listeners = {
        data: (c) => onChunk(typeof c === 'string' ? Buffer.from(c, 'utf8') : c),
        end: onEnd,
        error: onError,
      };
      stream.on('data', listeners.data);
      stream.on('end', listeners.end);
      stream.on('error', listeners.error);
    },
    pause: () => void stream.pause(),
    resume: () => void stream.resume(),
    stop() {
      if (listeners) {
        stream.removeListener('data', listeners.data);
        stream.removeListener('end', listeners.end);
      }
      stream.pause();
    },
  };
}

// `opencomms watch`: a live view for people, or (with --member) one line per
// new mail batch for an agent's monitor.

export interface WatchOptions {
  projectDir: string;
  /** --member: the agent mode, for this member. */
  memberId?: string;
  json: boolean;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  write: (text: string) => void;
  warn: (text: string) => void;
  onSignal: (signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP', handler: () => void) => void;
  /** The process that started us; when it is gone, so are we. */
  parentPid: number;
}

/** Resolves with the exit code when the watch ends. */
export async function runWatch(options: WatchOptions): Promise<number> {
  options.warn('opencomms: watch is being built.');
  return 1;
}

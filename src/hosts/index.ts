// Host configuration: install and uninstall OpenComms in a host's config files.

export interface InstallOptions {
  /** Absolute project directory. */
  projectDir: string;
  /** The host name as typed (validated here). */
  host: string;
  /** --member: use this member id instead of minting a pin. */
  memberId?: string;
  dryRun: boolean;
  /** --plugin (claude-code only): install as a Claude Code plugin. */
  plugin: boolean;
  /** --apply: run the host's own commands where that is part of the install. */
  apply: boolean;
  /** Absolute path of the opencomms.js that is running (copied into .opencomms/). */
  bundlePath: string;
  version: string;
  write: (text: string) => void;
  warn: (text: string) => void;
}

export interface UninstallOptions {
  projectDir: string;
  host: string;
  dryRun: boolean;
  write: (text: string) => void;
  warn: (text: string) => void;
}

/** Returns the exit code: 0 done, 1 failure (nothing written), 2 usage. */
export function runInstall(options: InstallOptions): number {
  options.warn(`opencomms: install ${options.host} is being built; nothing was changed.`);
  return 1;
}

export function runUninstall(options: UninstallOptions): number {
  options.warn(`opencomms: uninstall ${options.host} is being built; nothing was changed.`);
  return 1;
}

// Host configuration: install and uninstall OpenComms in a host's config files.
// Every target file is read and checked before anything is written, so a
// malformed file stops the run with the project untouched. Each write is
// atomic on its own; a failure between two writes (a full disk, say) can leave
// the earlier files written, and re-running install finishes the job.
export { runInstall, type InstallOptions } from './install';
export { runUninstall, type UninstallOptions } from './uninstall';

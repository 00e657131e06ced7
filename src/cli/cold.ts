// The cold half of the program: every command body and the server's tools,
// none of which a first reply needs. The bundle carries this half as text and
// compiles it on first use (see packs.ts), so start-up parses only the
// hot half: argv, the transport and the MCP handshake.
export { runStatus } from './status';
export { runPin } from './pin';
export { runDoctor } from './doctor';
export { runWatch } from './watch';
export { runInstall, runUninstall } from '../hosts';
export { createServeRuntime } from './serve-runtime';

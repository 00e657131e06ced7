// The OpenCode plugin's public surface for the rest of the program (install,
// tests). The bundle entry is plugin-entry.ts, which exports only the plugin.
export { OPENCODE_PLUGIN_FILE, findProjectDir } from './project-dir';
export { startOpenComms } from './plugin';
export type { OpenCommsHooks, OpenCommsInstance, OpenCommsPluginDeps } from './plugin';
export { PushDelivery, RETRY_DELAY_MS, PUSH_LEASE_MS, isPushMember, unrefSchedule } from './push-delivery';
export type { PushOutcome, PushDeliveryOptions, Schedule } from './push-delivery';
export { checkRootSession, locationOf, memberOptionsFor, OPENCODE_HOST_ID, sessionRefOf } from './identity';
export { SessionMembers, memberInState } from './session-members';
export { roleSections, ROLE_SECTION_HEADER } from './role-injection';
export { buildTools } from './tools';
export { presentArgs, zodArgs } from './tool-args';
export type * from './host-types';

// The grants a plain Claude Code install writes into the project's
// .claude/settings.local.json: the allow rule for the OpenComms tools, and the
// approval of the project .mcp.json server. Headless `claude -p` refuses every
// MCP tool no allow rule grants, and Claude Code does not take that rule from
// the committed .claude/settings.json; the local file is the user's own
// (Claude Code reads it for this user only), so a grant there speaks for the
// one person who ran install and for no teammate. Only the two values are
// ours: uninstall takes out exactly those, and a container only when taking
// them out left it empty.
import { ConfigError, isJsonObject, parseJsonObject, renderChanged, renderJson, type JsonObject } from './json-config';
import { isJsoncOnly } from './jsonc';
import type { OurParts } from './launch';

export const CLAUDE_LOCAL_SETTINGS = '.claude/settings.local.json';
/** The allow rule for every tool of the server named opencomms (Claude Code names them mcp__opencomms__<tool>). */
export const CLAUDE_ALLOW_RULE = 'mcp__opencomms';
/** The tools of the --plugin install's server, for spawn-push's --allowedTools. */
export const CLAUDE_PLUGIN_ALLOW_RULE = 'mcp__plugin_opencomms_opencomms';
const SERVER_NAME = 'opencomms';

/** Rules that already grant every OpenComms tool, so install adds none beside them. */
export function isOpencommsGrant(rule: unknown): boolean {
  return rule === CLAUDE_ALLOW_RULE || rule === `${CLAUDE_ALLOW_RULE}__*`;
}

function listAt(holder: JsonObject, key: string, where: string): unknown[] | undefined {
  const value = holder[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new ConfigError(`its "${where}" is not an array`);
  return value;
}

function checkSettings(text: string): JsonObject {
  const doc = parseJsonObject(text);
  if (doc.permissions !== undefined && !isJsonObject(doc.permissions)) throw new ConfigError('its "permissions" is not an object');
  if (isJsonObject(doc.permissions)) listAt(doc.permissions, 'allow', 'permissions.allow');
  listAt(doc, 'enabledMcpjsonServers', 'enabledMcpjsonServers');
  return doc;
}

/** Adds `value` to doc[key] (made when absent) unless `isThere` finds it already. */
function addTo(holder: JsonObject, key: string, value: string, isThere: (item: unknown) => boolean): void {
  const list = (holder[key] as unknown[] | undefined) ?? [];
  if (!list.some(isThere)) holder[key] = [...list, value];
}

/** Takes `value` out of doc[key]; drops the key when that emptied it. */
function takeFrom(holder: JsonObject, key: string, value: string): void {
  const list = holder[key];
  if (!Array.isArray(list) || !list.includes(value)) return;
  const left = list.filter((item) => item !== value);
  if (left.length === 0) delete holder[key];
  else holder[key] = left;
}

/** Whether the settings text holds our allow rule (or one that grants the same) and the server approval. */
export function grantsOf(doc: JsonObject): { allows: boolean; approves: boolean } {
  const allow = isJsonObject(doc.permissions) && Array.isArray(doc.permissions.allow) ? doc.permissions.allow : [];
  const enabled = Array.isArray(doc.enabledMcpjsonServers) ? doc.enabledMcpjsonServers : [];
  return { allows: allow.some(isOpencommsGrant), approves: doc.enableAllProjectMcpServers === true || enabled.includes(SERVER_NAME) };
}

/** A ConfigEdit (config-edits.ts) for the local settings file. */
export const CLAUDE_GRANTS_EDIT = {
  file: CLAUDE_LOCAL_SETTINGS,
  what: `permissions.allow ${CLAUDE_ALLOW_RULE} and enabledMcpjsonServers ${SERVER_NAME} (your own settings: Claude Code reads this file for you only)`,
  isGrant: true as const,
  check: (text: string): void => void checkSettings(text),
  hasOurs(text: string): boolean {
    const doc = checkSettings(text);
    const allow = isJsonObject(doc.permissions) ? doc.permissions.allow : undefined;
    return Array.isArray(allow) && allow.includes(CLAUDE_ALLOW_RULE);
  },
  userAdditions: (): string[] => [],
  ours: (): OurParts => ({ memberIds: [], hookScripts: [] }),
  install(text: string | undefined): string {
    const doc = text === undefined ? {} : checkSettings(text);
    const before = text === undefined ? undefined : structuredClone(doc);
    if (!isJsonObject(doc.permissions)) doc.permissions = {};
    addTo(doc.permissions as JsonObject, 'allow', CLAUDE_ALLOW_RULE, isOpencommsGrant);
    if (doc.enableAllProjectMcpServers !== true) addTo(doc, 'enabledMcpjsonServers', SERVER_NAME, (item) => item === SERVER_NAME);
    return text === undefined ? renderJson(doc) : renderChanged(text, before, doc);
  },
  uninstall(text: string, mustKeep = false): string | undefined {
    const doc = checkSettings(text);
    const before = structuredClone(doc);
    if (isJsonObject(doc.permissions)) {
      takeFrom(doc.permissions, 'allow', CLAUDE_ALLOW_RULE);
      if (Object.keys(doc.permissions).length === 0 && Object.keys(before.permissions as JsonObject).length > 0) delete doc.permissions;
    }
    takeFrom(doc, 'enabledMcpjsonServers', SERVER_NAME);
    if (renderJson(doc) === renderJson(before)) return text;
    if (!mustKeep && Object.keys(doc).length === 0 && !isJsoncOnly(text)) return undefined;
    return renderChanged(text, before, doc);
  },
};

// Hosts whose config lives outside the project (in the user's home): we print
// the entry to paste and where it goes, and write nothing there.
import { HostName, Launch, serverArgs, serverEnv } from './launch';

export interface Snippet {
  where: string;
  text: string;
}

// YAML accepts JSON's double-quoted strings and flow sequences, so the goose
// snippet reuses JSON.stringify for every scalar and list.
function gooseSnippet(launch: Launch): string {
  const q = (value: string): string => JSON.stringify(value);
  const env = serverEnv(launch);
  return [
    'extensions:',
    '  opencomms:',
    '    type: stdio',
    '    name: opencomms',
    '    enabled: true',
    '    cmd: node',
    `    args: [${serverArgs(launch).map(q).join(', ')}]`,
    ...(env === undefined ? ['    envs: {}'] : ['    envs:', ...Object.entries(env).map(([name, value]) => `      ${name}: ${q(value)}`)]),
    '    env_keys: []',
    '    timeout: 300',
    '',
  ].join('\n');
}

function mcpServersSnippet(launch: Launch): string {
  const env = serverEnv(launch);
  const entry = { command: 'node', args: serverArgs(launch), ...(env ? { env } : {}) };
  return `${JSON.stringify({ mcpServers: { opencomms: entry } }, null, 2)}\n`;
}

/** The snippet for a print-only host, or undefined for hosts we configure ourselves. */
export function snippetFor(host: HostName, launch: Launch): Snippet | undefined {
  switch (host) {
    case 'claude-desktop':
      return {
        where: 'the "mcpServers" object of claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, ' +
          'Windows: %APPDATA%\\Claude\\), then restart Claude Desktop',
        text: mcpServersSnippet(launch),
      };
    case 'windsurf':
      return {
        where: 'the "mcpServers" object of ~/.codeium/windsurf/mcp_config.json, then refresh the MCP servers in Windsurf',
        text: mcpServersSnippet(launch),
      };
    case 'goose':
      return {
        where: 'the "extensions:" map of ~/.config/goose/config.yaml (Windows: %APPDATA%\\Block\\goose\\config\\config.yaml)',
        text: gooseSnippet(launch),
      };
    default:
      return undefined;
  }
}

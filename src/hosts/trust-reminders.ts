// What each host still needs from the user before it uses the project config.
import { HostName } from './launch';

export function trustReminder(host: HostName, plugin: boolean): string | undefined {
  switch (host) {
    case 'claude-code':
      return plugin
        ? 'Claude Code: the plugin starts with the next session in this project; check it with `claude plugin list` (and `/mcp` inside a session).'
        : 'Claude Code: approve the project .mcp.json server "opencomms" when Claude Code asks on first start (check with `claude mcp list`).';
    case 'gemini-cli':
      return 'Gemini CLI: trust this folder (Gemini CLI disables MCP servers and hooks in untrusted folders).';
    case 'codex':
      return 'Codex: trust this project (project .codex/config.toml loads only for trusted projects) and review the hooks when Codex asks.';
    case 'cursor':
      return 'Cursor: enable the "opencomms" server in Settings > MCP when Cursor asks.';
    case 'vscode':
      return 'VS Code: start the "opencomms" server from .vscode/mcp.json and trust it when asked.';
    default:
      return undefined;
  }
}

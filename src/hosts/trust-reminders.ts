// What each host still needs from the user before it uses the project config.
import { HostName } from './launch';

export function trustReminder(host: HostName, plugin: boolean): string | undefined {
  switch (host) {
    case 'claude-code':
      return plugin
        ? 'Claude Code: the plugin starts with the next session in this project; check it with `claude plugin list` (and `/mcp` inside a session).'
        : 'Claude Code: .claude/settings.local.json (yours, not for git) approves the .mcp.json server "opencomms" and allows its tools, so headless `claude -p` can use them too; an interactive claude still asks once whether you trust this folder (check with `claude mcp list`).';
    case 'cursor':
      return 'Cursor: enable the "opencomms" server in Settings > MCP when Cursor asks.';
    case 'vscode':
      return 'VS Code: start the "opencomms" server from .vscode/mcp.json and trust it when asked.';
    default:
      return undefined;
  }
}

#!/usr/bin/env bash
# Installs OpenComms into a throwaway project for each host whose CLI runs
# offline, and asks the host itself whether the server connects:
#   claude mcp list, gemini mcp list, opencode debug agent build (the plugin's
#   tools in the agent's resolved tool list), and for Codex
#   `codex app-server` over stdio (initialize, thread/start ephemeral,
#   mcpServerStatus/list, hooks/list, mcpServer/tool/call); and for the
#   Claude Code plugin, `install claude-code --plugin --apply` (marketplace add +
#   plugin install), `claude plugin validate --strict` on the generated folder,
#   and `claude plugin list`.
# Then drives the real `claude -p` through whole turns with no network: the
# model is scripts/stub-model.mjs on 127.0.0.1 (ANTHROPIC_BASE_URL), which
# answers with canned tool calls and records what the model was shown. Two
# sessions in one project must each see their own member in opencomms_status,
# a --resume of the first must see its member again (and the mail the second
# sent it), and a trivial turn is timed with and without the plugin's async
# Stop waiter (issue 15: a headless run must exit within 2 s of its turn).
# And each host's deny, with the real Claude Code, Codex and Gemini CLI
# against the same stub (scripts/check-hosts-deny.sh): a fresh session outside
# the holder's channel is refused its edit tool and a plain shell write of a
# held file, and a shell write that slips through is reported to it and to
# the holder.
# And a newcomer's first run by the README alone (scripts/check-hosts-newcomer.sh):
# git clone, npm ci and the README's set-up commands, timed, then a Claude Code
# and a Codex session that exchange a review request and its answer.
# And doctor against configs a host refuses or mis-starts (scripts/check-hosts-clone.sh):
# a .mcp.json with a comment, and a clone whose configs start the first checkout.
# And each host's door (scripts/check-hosts-doors.sh): an idle interactive
# Claude Code and Codex, each in tmux against the same stub, woken by their own
# OpenComms server through the host's own door (the Claude Code inbox,
# `codex queue`) when a second member sends; the send -> wake time is measured;
# then ten mails a few seconds apart to the idle Claude Code must wake it ten times.
# No login and no model call. Not part of `npm test`.
#
# Usage: scripts/check-hosts.sh
#   CHECK_HOSTS_PREFIX=DIR     reuse an npm prefix that already holds the host CLIs
#   CHECK_HOSTS_KEEP=1         keep the temp dirs for a look afterwards
#   CHECK_HOSTS_ONLY=connect   only the connection checks (mcp list, plugin, codex app-server)
#   CHECK_HOSTS_ONLY=turns     only the Claude Code turns against the stub model
#   CHECK_HOSTS_ONLY=deny      only each host's deny (Claude Code, Codex, Gemini CLI) against the stub model
#   CHECK_HOSTS_ONLY=newcomer  only a newcomer's run by the README: git clone, npm ci, the README's
#                              commands (timed), then Claude Code and Codex exchange a review request
#                              and its answer against the stub model (needs the npm registry for npm ci)
#   CHECK_HOSTS_ONLY=doors     only the idle-session doors (interactive Claude Code and Codex in tmux) against the stub model
#   CHECK_HOSTS_ONLY=board     only the task board with the real hosts (scripts/check-hosts-board.sh):
#                              an idle Claude Code and Codex in tmux woken by a person's `task add`
#                              and claiming the task; both waiting in one project, each task wakes
#                              the longest waiter only; a Claude Code session shown its claim at
#                              SessionStart after /compact (headless --resume, and interactive)
#   CHECK_HOSTS_ONLY=clone     only doctor against configs the host refuses or mis-starts (scripts/check-hosts-clone.sh):
#                              a .mcp.json with a comment; a clone whose configs start the first checkout,
#                              before and after doctor --fix, with a real Claude Code session in the clone
#   CHECK_HOSTS_DOORS=claude   only these parts of the doors and board (claude, codex, claude-board,
#                              codex-board, pair, claude-compact; by default those of the CHECK_HOSTS_ONLY part)
#   CHECK_HOSTS_TURNS="reserve stop"  only these parts of the turns (sessions, reserve, stop, redis)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="$ROOT/dist/opencomms.js"
[ -f "$DIST" ] || { echo "check-hosts: $DIST is missing; run npm run build first." >&2; exit 1; }
# at_terminal: a person's commands run at a terminal, even when this check runs without one.
# shellcheck source=scripts/lib/at-terminal.sh
. "$ROOT/scripts/lib/at-terminal.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/opencomms-check-hosts.XXXXXX")"
[ "${CHECK_HOSTS_KEEP:-}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
PREFIX="${CHECK_HOSTS_PREFIX:-$WORK/prefix}"
PROJECT="$WORK/project"
mkdir -p "$PROJECT" "$WORK/home"

# A throwaway HOME and XDG dirs: nothing the hosts write reaches the real user.
NPM_CACHE="${npm_config_cache:-$HOME/.npm}"
export HOME="$WORK/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_DATA_HOME="$HOME/.local/share" XDG_CACHE_HOME="$HOME/.cache" XDG_STATE_HOME="$HOME/.local/state"
export npm_config_cache="$NPM_CACHE"
export PATH="$PREFIX/bin:$PATH"
unset OPENCOMMS_MEMBER_ID OPENCOMMS_PROJECT_DIR

# Explicit @latest: without a tag, npm picks the newest version whose
# "engines" the running Node satisfies, which on Node 20 is a months-old
# Claude Code (2.1.197; later ones say node >=22 though the CLI is a native binary).
PACKAGES=(@anthropic-ai/claude-code@latest @google/gemini-cli@latest @openai/codex@latest opencode-ai@latest)
BINS=(claude gemini codex opencode)
ONLY="${CHECK_HOSTS_ONLY:-}"
wanted() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }
if [ "$ONLY" = turns ]; then PACKAGES=("${PACKAGES[0]}") BINS=(claude); fi
if [ "$ONLY" = deny ]; then PACKAGES=("${PACKAGES[@]:0:3}") BINS=(claude gemini codex); fi
if [ "$ONLY" = newcomer ]; then PACKAGES=("${PACKAGES[0]}" "${PACKAGES[2]}") BINS=(claude codex); fi
if [ "$ONLY" = clone ]; then PACKAGES=("${PACKAGES[0]}") BINS=(claude); fi
if [ "$ONLY" = doors ] || [ "$ONLY" = board ]; then PACKAGES=("${PACKAGES[0]}" "${PACKAGES[2]}") BINS=(claude codex); fi
status=0
declare -A RESULT
RESULT_ORDER=()
wanted connect && RESULT_ORDER=(claude-code claude-code-plugin claude-code-plugin-validate gemini-cli opencode codex codex-trust)

section() { printf '\n=== %s ===\n' "$1"; }

section "host CLIs"
have_all=1
for bin in "${BINS[@]}"; do [ -x "$PREFIX/bin/$bin" ] || have_all=0; done
if [ "$have_all" = 1 ]; then
  echo "reusing $PREFIX"
else
  echo "npm install -g --prefix $PREFIX ${PACKAGES[*]}"
  start=$SECONDS
  if ! timeout 1200 npm install -g --prefix "$PREFIX" --no-fund --no-audit "${PACKAGES[@]}" >"$WORK/npm.log" 2>&1; then
    echo "npm install failed after $((SECONDS - start)) s; last lines:"
    tail -20 "$WORK/npm.log"
  else
    echo "installed in $((SECONDS - start)) s"
  fi
fi
for bin in "${BINS[@]}"; do
  printf '%-9s %s\n' "$bin" "$(timeout 60 "$bin" --version 2>/dev/null | head -1 || echo 'not available')"
done

TURN_PROJECT="$WORK/turn-project"
TIMING_PROJECT="$WORK/timing-plugin-project"
mkdir -p "$TURN_PROJECT" "$TIMING_PROJECT"

# Approvals the hosts would otherwise ask for interactively, in the throwaway HOME.
cat >"$HOME/.claude.json" <<EOF
{"hasCompletedOnboarding":true,"projects":{
 "$PROJECT":{"hasTrustDialogAccepted":true,"enabledMcpjsonServers":["opencomms"]},
 "$TURN_PROJECT":{"hasTrustDialogAccepted":true,"enabledMcpjsonServers":["opencomms"]},
 "$TIMING_PROJECT":{"hasTrustDialogAccepted":true}}}
EOF
if wanted connect; then
section "opencomms install (project $PROJECT)"
git -C "$PROJECT" init -q 2>/dev/null # Codex finds the project root by its .git
for host in claude-code gemini-cli opencode codex; do
  node "$DIST" install "$host" --project "$PROJECT" || { echo "install $host failed"; status=1; }
done
mkdir -p "$HOME/.gemini" "$HOME/.codex"
printf '{"%s":"TRUST_FOLDER"}\n' "$PROJECT" >"$HOME/.gemini/trustedFolders.json"
printf '[projects."%s"]\ntrust_level = "trusted"\n' "$PROJECT" >"$HOME/.codex/config.toml"

check() { # name, grep pattern, command...
  local name=$1 pattern=$2
  shift 2
  section "$name: $*"
  local out
  out="$(cd "$PROJECT" && timeout 120 "$@" 2>&1)"
  printf '%s\n' "$out" | sed -e 's/\x1b\[[0-9;]*m//g' | grep -v '^\s*$' | tail -15
  if printf '%s' "$out" | grep -Eiq "$pattern"; then RESULT[$name]=connected; else RESULT[$name]="NOT connected"; status=1; fi
}

command -v claude >/dev/null && check claude-code 'opencomms.*connected' claude mcp list
command -v gemini >/dev/null && check gemini-cli 'opencomms.*connected' gemini mcp list
# OpenCode gets no MCP server: the plugin gives its sessions the tools. Its
# build agent's resolved tools list them once the plugin has loaded.
command -v opencode >/dev/null && check opencode 'opencomms_pull' opencode debug agent build

# The plugin install, in a second project (the plugin replaces the plain
# install's .mcp.json entry and hooks): opencomms writes the plugin folder and
# runs `claude plugin marketplace add` + `claude plugin install` (local scope)
# itself with --apply; then `claude plugin list` must show it enabled. No login needed.
if command -v claude >/dev/null; then
  PLUGIN_PROJECT="$WORK/plugin-project"
  mkdir -p "$PLUGIN_PROJECT"
  section "claude-code --plugin: opencomms install claude-code --plugin --apply"
  (cd "$PLUGIN_PROJECT" && timeout 180 node "$DIST" install claude-code --plugin --apply --project "$PLUGIN_PROJECT" 2>&1) | sed -e 's/\x1b\[[0-9;]*m//g' | tail -12
  # Claude Code's own check of the generated plugin and marketplace manifests;
  # --strict turns its warnings into failures where this claude knows the flag.
  PLUGIN_DIR="$PLUGIN_PROJECT/.opencomms/claude-plugin"
  VALIDATE=(claude plugin validate)
  if timeout 60 claude plugin validate --help 2>&1 | grep -q -- '--strict'; then
    VALIDATE+=(--strict)
  else
    echo "note: this claude ($(claude --version 2>/dev/null | head -1)) has no 'plugin validate --strict'; validating without it"
  fi
  section "claude-code plugin manifest: ${VALIDATE[*]} $PLUGIN_DIR"
  if out="$(timeout 120 "${VALIDATE[@]}" "$PLUGIN_DIR" 2>&1)"; then RESULT[claude-code-plugin-validate]=valid; else RESULT[claude-code-plugin-validate]="NOT valid"; status=1; fi
  printf '%s\n' "$out" | sed -e 's/\x1b\[[0-9;]*m//g' | grep -v '^\s*$' | tail -15
  check claude-code-plugin 'Status: .*enabled' bash -c "cd '$PLUGIN_PROJECT' && claude plugin list"
fi

if command -v codex >/dev/null; then
  section "codex: app-server over stdio"
  out="$(cd "$PROJECT" && timeout 180 node - "$PROJECT" "$ROOT/scripts/lib/mcp-stdio.mjs" <<'EOF' 2>&1
const [project, lib] = process.argv.slice(2);
const show = (label, value) => console.log(`${label}: ${JSON.stringify(value).slice(0, 600)}`);
let child;
(async () => {
  const { startJsonLines } = await import(lib);
  const codex = startJsonLines('codex', ['app-server'], { cwd: project, stderr: 'ignore', jsonrpc: false, replyMs: 60_000 });
  child = codex.child;
  const call = codex.request;
  const untilEvent = codex.untilEvent;
  const init = await call('initialize', { clientInfo: { name: 'opencomms-check-hosts', version: '0' } });
  show('initialize', init.result ?? init.error);
  codex.send({ method: 'initialized' });
  const thread = await call('thread/start', { cwd: project, ephemeral: true });
  if (!thread.result) throw new Error(`thread/start failed: ${JSON.stringify(thread.error)}`);
  const threadId = thread.result.thread.id;
  console.log(`thread/start: ephemeral thread ${threadId}`);
  const ready = await untilEvent((e) => e.method === 'mcpServer/startupStatus/updated' && e.params.name === 'opencomms'
    && e.params.status !== 'starting', 'opencomms startup status');
  show('mcpServer/startupStatus/updated', ready.params);
  const status = await call('mcpServerStatus/list', { threadId, serverName: 'opencomms' });
  const servers = status.result?.data ?? [];
  show('mcpServerStatus/list', servers.map((s) => ({ name: s.name, tools: Object.keys(s.tools ?? {}).length, authStatus: s.authStatus })));
  const hooks = await call('hooks/list', { threadId });
  show('hooks/list', (hooks.result?.data ?? []).flatMap((entry) => entry.hooks.map((h) => h.eventName ?? h.event ?? h))
    .map((h) => (typeof h === 'string' ? h : JSON.stringify(h).slice(0, 80))));
  const tool = await call('mcpServer/tool/call', { threadId, server: 'opencomms', tool: 'opencomms_status', arguments: {} });
  show('mcpServer/tool/call opencomms_status', tool.result ?? tool.error);
  const connected = ready.params.status === 'ready' && servers.some((s) => s.name === 'opencomms') && tool.result && !tool.result.isError;
  console.log(connected ? 'codex: opencomms connected' : 'codex: opencomms NOT connected');
  codex.close();
})().catch((err) => {
  console.log(`codex: ${err.message}`);
  child?.kill();
});
EOF
)"
  printf '%s\n' "$out"
  if printf '%s' "$out" | grep -q 'codex: opencomms connected'; then RESULT[codex]=connected; else RESULT[codex]="NOT connected"; status=1; fi
fi

# Codex hook trust (issue 25): `install codex --apply` writes the trust lines
# into the throwaway ~/.codex/config.toml; the real Codex must then list every
# OpenComms hook of a fresh project as trusted (app-server hooks/list), which is
# what makes `codex exec` run them instead of skipping them without a word.
if command -v codex >/dev/null; then
  TRUST_PROJECT="$WORK/codex-trust-project"
  mkdir -p "$TRUST_PROJECT" && git -C "$TRUST_PROJECT" init -q 2>/dev/null
  section "codex trust: opencomms install codex --apply, then hooks/list"
  node "$DIST" install codex --project "$TRUST_PROJECT" --apply | sed -n '/^wrote .*config.toml/p'
  out="$(cd "$TRUST_PROJECT" && timeout 120 node "$ROOT/scripts/codex-hooks-list.cjs" "$TRUST_PROJECT" 2>&1)"
  printf '%s\n' "$out"
  if printf '%s' "$out" | grep -q 'every opencomms hook trusted'; then RESULT[codex-trust]="trusted (hooks/list)"; else RESULT[codex-trust]="NOT trusted"; status=1; fi
fi

fi # wanted connect

if wanted turns && command -v claude >/dev/null; then
  # shellcheck source=scripts/check-hosts-turns.sh
  . "$ROOT/scripts/check-hosts-turns.sh"
fi

if wanted deny; then
  # shellcheck source=scripts/check-hosts-deny.sh
  . "$ROOT/scripts/check-hosts-deny.sh"
fi

if wanted newcomer; then
  # shellcheck source=scripts/check-hosts-newcomer.sh
  . "$ROOT/scripts/check-hosts-newcomer.sh"
fi

if wanted clone; then
  # shellcheck source=scripts/check-hosts-clone.sh
  . "$ROOT/scripts/check-hosts-clone.sh"
fi

# The board's parts (scripts/check-hosts-board.sh) run inside the doors' setup.
if wanted doors || wanted board; then
  # shellcheck source=scripts/check-hosts-doors.sh
  . "$ROOT/scripts/check-hosts-doors.sh"
fi

section "summary"
for name in "${RESULT_ORDER[@]}"; do printf '%-34s %s\n' "$name" "${RESULT[$name]:-not checked}"; done
exit $status

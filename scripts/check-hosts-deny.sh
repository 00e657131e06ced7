# Sourced by scripts/check-hosts.sh (uses its ROOT, DIST, WORK, HOME, PATH,
# status, RESULT, RESULT_ORDER and section): each host's deny, with the real
# CLI driven offline against scripts/stub-model.mjs (Claude Code through
# ANTHROPIC_BASE_URL, Codex through a model provider's base_url in its own
# CODEX_HOME, Gemini CLI through GOOGLE_GEMINI_BASE_URL).
#
# One project, set up by `opencomms install` for all three hosts as a user
# would. A holder (scripts/mcp-holder.mjs: an OpenComms server driven over
# stdio, present throughout) reserves src/a.ts and held/** exclusively in
# channel deny-check. Then a fresh session of each host, which never joins
# that channel, tries in one turn:
#   its edit tool on src/a.ts (Claude Code Edit and Write, Codex apply_patch,
#   Gemini CLI write_file): refused, the file unchanged, and the text the
#   model was shown names the holder, its channel and how to join it;
#   the same file by other names: `alias/../a.ts` (alias -> src/sub; the
#   kernel reads the `..` after the link) in a Codex apply_patch and a Codex
#   exec_command `echo … >> alias/../a.ts`; `alias/../held/file.txt` in a
#   Codex apply_patch (Codex folds the `..` first and writes held/file.txt);
#   and an edit of hl-HOST.ts, a hard link of src/a.ts (Claude Code Edit,
#   Codex apply_patch, Gemini CLI replace): each refused, the file unchanged;
#   a shell command that plainly writes a held file (`echo … > held/file.txt`
#   through Bash, exec_command, run_shell_command): refused before it runs;
#   a shell write the check cannot see (`sh tools/w.sh HOST`, a script that
#   appends to held/file.txt): it runs, and the model is shown a notice naming
#   the file and its holder.
# And Codex's write_stdin, in a second Codex turn: exec_command starts an
# interactive `sh` (tty), write_stdin types `echo codex-stdin-slipped >> held/file.txt`
# into it, then `exit`. A logging hook beside ours records every hook event
# Codex sends; the check requires that none names write_stdin (Codex sends no
# PreToolUse for it, so the typed write cannot be refused), that the `Bash`
# PostToolUse of the `sh` call came once a poll saw it exit, and that the model
# was then shown the notice naming held/file.txt.
# A fresh OpenCode session (`opencode run`, its Anthropic provider pointed at
# the stub; OpenComms only through the plugin install wrote) tries edit,
# write and a bash write of held files: each stopped by the plugin's
# tool.execute.before, the model shown the refusal as the tool's error; then
# the script write, which runs and is reported in the tool's output.
# Finally the holder's inbox must hold a `system` notice for each host's
# slipped write. Every check prints one PASS or FAIL line.

DENY="$WORK/deny"
DENY_PROJECT="$WORK/deny-project"
DENY_STUB_SCRIPT="$DENY/stub-script.json"
DENY_STUB_LOG="$DENY/stub-requests.jsonl"
DENY_CHANNEL=deny-check
mkdir -p "$DENY" "$DENY_PROJECT/src/sub" "$DENY_PROJECT/held" "$DENY_PROJECT/tools"
: >"$DENY_STUB_LOG"

deny_verdict() { # name, pass|fail, text
  local name=$1 outcome=$2 text=$3
  RESULT_ORDER+=("$name")
  if [ "$outcome" = pass ]; then RESULT[$name]="PASS"; printf 'PASS %s: %s\n' "$name" "$text"
  else RESULT[$name]="FAIL"; printf 'FAIL %s: %s\n' "$name" "$text"; status=1; fi
}
# deny_json FILE EXPR: EXPR with `s` bound to FILE's JSON ('' for null/undefined or no file).
deny_json() {
  node -e 'let s; try { s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); } catch { process.exit(0); }
const v = eval(process.argv[2]); process.stdout.write(v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));' "$1" "$2" 2>/dev/null
}
# The text of the first tool result of TURN whose tool name is NAME (exact) that holds TEXT, or of the first one named NAME.
deny_result() { # turn, tool name, [text]
  deny_json "$DENY/$1.json" "((f) => f.find((t) => t.text.includes('${3:-}')) || f[0] || {})(s.tool_results.filter((t) => t.name === '$2')).text"
}
# The text of the Nth (from 0) tool result of TURN whose tool name is NAME.
deny_nth_result() { # turn, tool name, n
  deny_json "$DENY/$1.json" "(s.tool_results.filter((t) => t.name === '$2')[$3] || {}).text"
}
# Whether a deny TEXT reads as a deliberate refusal (whatever label the host
# puts before it: Claude Code says "PreToolUse:Edit hook error:") and names the
# holder, its channel and how to join it (a session outside the channel reads this).
names_holder() {
  [[ "$1" == *"OpenComms refused this "*" on purpose"* && "$1" == *"$HOLDER_ID"* && "$1" == *"channel \"$DENY_CHANNEL\""* && "$1" == *"opencomms_join"* ]]
}
short() { printf '%s' "$1" | tr '\n' ' ' | head -c "${2:-420}"; }

section "deny: one project, three hosts installed, a holder of src/a.ts and held/**"
git -C "$DENY_PROJECT" init -q 2>/dev/null
printf 'export const a = 1;\n' >"$DENY_PROJECT/src/a.ts"
printf 'held\n' >"$DENY_PROJECT/held/file.txt"
# src/a.ts by two other names: alias/../a.ts (the kernel reads `..` after the link: src/) and a hard link.
ln -s src/sub "$DENY_PROJECT/alias"
for host in claude codex gemini; do ln "$DENY_PROJECT/src/a.ts" "$DENY_PROJECT/hl-$host.ts"; done
# A write no parser sees: the held path is only in the script.
printf '#!/bin/sh\necho "${1:-someone}-slipped" >> held/file.txt\n' >"$DENY_PROJECT/tools/w.sh"
for host in claude-code codex gemini-cli opencode; do
  node "$DIST" install "$host" --project "$DENY_PROJECT" >"$DENY/install-$host.out" 2>&1 \
    && echo "opencomms install $host: $(grep -c '^wrote' "$DENY/install-$host.out") file(s) written" \
    || { echo "opencomms install $host failed: $(tail -3 "$DENY/install-$host.out")"; status=1; }
done

node "$ROOT/scripts/stub-model.mjs" --script "$DENY_STUB_SCRIPT" --log "$DENY_STUB_LOG" >"$DENY/stub.out" 2>"$DENY/stub.err" &
DENY_STUB_PID=$!
DENY_PORT=
for _ in $(seq 1 100); do
  DENY_PORT="$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$DENY/stub.out")"
  [ -n "$DENY_PORT" ] && break
  kill -0 "$DENY_STUB_PID" 2>/dev/null || break
  sleep 0.1
done
DENY_GO="$DENY/holder-go"
node "$ROOT/scripts/mcp-holder.mjs" --dist "$DIST" --project "$DENY_PROJECT" --channel "$DENY_CHANNEL" --out "$DENY/holder.json" \
  --go "$DENY_GO" --host holder src/a.ts 'held/**' >"$DENY/holder.out" 2>"$DENY/holder.err" &
DENY_HOLDER_PID=$!
trap 'touch "$DENY_GO"; kill "$DENY_STUB_PID" "$DENY_HOLDER_PID" 2>/dev/null; [ "${CHECK_HOSTS_KEEP:-}" = 1 ] || rm -rf "$WORK"' EXIT
for _ in $(seq 1 300); do
  [ -s "$DENY/holder.json" ] && break
  kill -0 "$DENY_HOLDER_PID" 2>/dev/null || break
  sleep 0.1
done
HOLDER_ID="$(deny_json "$DENY/holder.json" 's.member_id')"
if [ -z "$DENY_PORT" ] || [ -z "$HOLDER_ID" ]; then
  deny_verdict deny-setup fail "stub model port '${DENY_PORT}' ($(head -c 200 "$DENY/stub.err")); holder '${HOLDER_ID}' ($(head -c 300 "$DENY/holder.json.error" "$DENY/holder.err" 2>/dev/null))"
  touch "$DENY_GO"
  kill "$DENY_STUB_PID" "$DENY_HOLDER_PID" 2>/dev/null
  return 0
fi
echo "stub model on 127.0.0.1:$DENY_PORT; holder $HOLDER_ID (its server stays up): $(deny_json "$DENY/holder.json" 'JSON.parse(s.reserve).message')"

# The hosts' approvals, in the throwaway HOME (Codex in a CODEX_HOME of its own:
# its model provider is top-level config, which must come before any table).
node -e 'const [file, project] = process.argv.slice(1); const fs = require("fs");
let j = {}; try { j = JSON.parse(fs.readFileSync(file, "utf8")); } catch {}
j.hasCompletedOnboarding = true; j.projects = j.projects || {};
j.projects[project] = { hasTrustDialogAccepted: true, enabledMcpjsonServers: ["opencomms"] };
fs.writeFileSync(file, JSON.stringify(j));' "$HOME/.claude.json" "$DENY_PROJECT"
mkdir -p "$HOME/.gemini"
node -e 'const [dir, project] = process.argv.slice(1); const fs = require("fs");
const read = (f) => { try { return JSON.parse(fs.readFileSync(f, "utf8")); } catch { return {}; } };
const trusted = read(dir + "/trustedFolders.json"); trusted[project] = "TRUST_FOLDER";
fs.writeFileSync(dir + "/trustedFolders.json", JSON.stringify(trusted));
const settings = read(dir + "/settings.json"); settings.security = { ...(settings.security || {}), auth: { selectedType: "gemini-api-key" } };
fs.writeFileSync(dir + "/settings.json", JSON.stringify(settings));' "$HOME/.gemini" "$DENY_PROJECT"
DENY_CODEX_HOME="$WORK/codex-home"
mkdir -p "$DENY_CODEX_HOME"
# gpt-5.5: a model Codex knows, so it offers apply_patch as its own tool (with an
# unknown model it offers only exec_command and patches through it).
cat >"$DENY_CODEX_HOME/config.toml" <<EOF
model_provider = "stub"
model = "gpt-5.5"

[model_providers.stub]
name = "stub"
base_url = "http://127.0.0.1:$DENY_PORT/v1"
wire_api = "responses"
env_key = "STUB_API_KEY"

[projects."$DENY_PROJECT"]
trust_level = "trusted"
EOF
BASE_ENV=(env -i "PATH=$PATH" "HOME=$HOME" "TMPDIR=${TMPDIR:-/tmp}" "LANG=C.UTF-8"
  "XDG_CONFIG_HOME=$XDG_CONFIG_HOME" "XDG_DATA_HOME=$XDG_DATA_HOME" "XDG_CACHE_HOME=$XDG_CACHE_HOME" "XDG_STATE_HOME=$XDG_STATE_HOME")
CLAUDE_DENY_ENV=("${BASE_ENV[@]}" "ANTHROPIC_BASE_URL=http://127.0.0.1:$DENY_PORT" "ANTHROPIC_API_KEY=sk-offline-stub"
  "DISABLE_AUTOUPDATER=1" "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
CODEX_DENY_ENV=("${BASE_ENV[@]}" "CODEX_HOME=$DENY_CODEX_HOME" "STUB_API_KEY=sk-offline-stub")
GEMINI_DENY_ENV=("${BASE_ENV[@]}" "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$DENY_PORT" "GEMINI_API_KEY=offline-stub")

# A second hook beside ours, for the write_stdin check: it records every
# PreToolUse and PostToolUse event Codex sends (what OpenComms' hook is given).
DENY_CODEX_EVENTS="$DENY/codex-hook-events.jsonl"
printf '%s\n' 'let s = ""; process.stdin.on("data", (d) => { s += d; }).on("end", () => { require("fs").appendFileSync(process.argv[2], s.trim() + "\n"); process.stdout.write("{}\n"); });' >"$DENY/log-hook.cjs"
node -e 'const [file, command] = process.argv.slice(1); const fs = require("fs"); const j = JSON.parse(fs.readFileSync(file, "utf8"));
for (const event of ["PreToolUse", "PostToolUse"]) (j.hooks[event] = j.hooks[event] || []).push({ hooks: [{ type: "command", command, timeout: 30 }] });
fs.writeFileSync(file, JSON.stringify(j, null, 2));' "$DENY_PROJECT/.codex/hooks.json" "node \"$DENY/log-hook.cjs\" \"$DENY_CODEX_EVENTS\""

# Codex skips untrusted project hooks without a word: trust each one by the hash
# its app-server reports (hooks/list), as a person approving them would.
if command -v codex >/dev/null; then
  (cd "$DENY_PROJECT" && "${CODEX_DENY_ENV[@]}" timeout 120 node "$ROOT/scripts/codex-hooks-list.cjs" "$DENY_PROJECT" --toml \
    >"$DENY/codex-hooks.toml" 2>"$DENY/codex-hooks.err")
  cat "$DENY/codex-hooks.toml" >>"$DENY_CODEX_HOME/config.toml"
  echo "codex: trusted $(grep -c '^trusted_hash' "$DENY/codex-hooks.toml") project hook(s) by their hooks/list hashes $(head -c 200 "$DENY/codex-hooks.err")"
fi

deny_turn() { # name, api, env array name, host command...
  local name=$1 api=$2 envname="$3[@]"
  shift 3
  (cd "$DENY_PROJECT" && "${!envname}" node "$ROOT/scripts/claude-turn.mjs" --name "$name" --out "$DENY" --api "$api" \
    --stub-log "$DENY_STUB_LOG" --timeout 180 --find "your shell command changed" -- "$@")
}
deny_show() { # name: the tool results the model saw, shortened
  deny_json "$DENY/$1.json" 's.tool_results.map((t) => "  " + t.name + " -> " + t.text.replace(/\s+/g, " ").slice(0, 200)).join("\n")'
  echo
}
held_has() { grep -qx -- "$1" "$DENY_PROJECT/held/file.txt"; }
# The verdicts every host gets. deny_edit_verdict NAME TOOL RESULT [MORE]: src/a.ts
# unchanged and RESULT (what the model was shown) names the holder; MORE is
# added to a failure.
deny_edit_verdict() {
  [[ "$(cat "$DENY_PROJECT/src/a.ts")" == "$A_BEFORE" ]] && names_holder "$3" \
    && deny_verdict "$1" pass "$2 of src/a.ts refused, file unchanged; the model was shown: $(short "$3")" \
    || deny_verdict "$1" fail "src/a.ts now \"$(head -c 100 "$DENY_PROJECT/src/a.ts")\"; $2 result: $(short "${3:-none}")${4:+ ($4)}"
}
# deny_write_verdict NAME TOOL RESULT: no held/new.txt made, RESULT names the holder.
deny_write_verdict() {
  [ ! -e "$DENY_PROJECT/held/new.txt" ] && names_holder "$3" \
    && deny_verdict "$1" pass "$2 of held/new.txt (under held/**) refused, no file made; shown: $(short "$3" 200)" \
    || deny_verdict "$1" fail "held/new.txt $([ -e "$DENY_PROJECT/held/new.txt" ] && echo exists || echo 'absent'); $2 result: $(short "${3:-none}")"
}
# deny_shell_verdict NAME TOOL HOST RESULT: `echo HOST-bash > held/file.txt` never ran, RESULT names the holder.
deny_shell_verdict() {
  ! held_has "$3-bash" && names_holder "$4" \
    && deny_verdict "$1" pass "$2 \`echo $3-bash > held/file.txt\` refused before it ran; shown: $(short "$4" 200)" \
    || deny_verdict "$1" fail "held/file.txt: $(tr '\n' '|' <"$DENY_PROJECT/held/file.txt"); $2 result: $(short "${4:-none}")"
}
# deny_notice_verdict NAME TOOL HOST SEEN: `sh tools/w.sh HOST` ran and the model was then shown SEEN.
deny_notice_verdict() {
  held_has "$3-slipped" && [ -n "$4" ] \
    && deny_verdict "$1" pass "$2 \`sh tools/w.sh $3\` wrote held/file.txt; the model was then shown: $4" \
    || deny_verdict "$1" fail "file has $3-slipped: $(held_has "$3-slipped" && echo yes || echo no); notice shown: ${4:-no}"
}

A_BEFORE="$(cat "$DENY_PROJECT/src/a.ts")"
PATCH='*** Begin Patch
*** Update File: src/a.ts
@@
-export const a = 1;
+export const a = 2; // codex patched a held file
*** End Patch
'
node -e 'const [file, project, patch] = process.argv.slice(1); const fs = require("fs");
const other = (name) => patch.replace("*** Update File: src/a.ts", "*** Update File: " + name);
const heldPatch = "*** Begin Patch\n*** Update File: alias/../held/file.txt\n@@\n-held\n+codex-patched-held\n*** End Patch\n";
const shell = (host) => [`echo ${host}-bash > held/file.txt`, `sh tools/w.sh ${host}`];
const [cEcho, cSlip] = shell("claude"); const [xEcho, xSlip] = shell("codex"); const [gEcho, gSlip] = shell("gemini");
fs.writeFileSync(file, JSON.stringify({
  claude: [
    { tool: "Read", input: { file_path: project + "/src/a.ts" } },
    { tool: "Edit", input: { file_path: project + "/src/a.ts", old_string: "export const a = 1;", new_string: "export const a = 3; // claude edited a held file" } },
    { tool: "Read", input: { file_path: project + "/hl-claude.ts" } },
    { tool: "Edit", input: { file_path: project + "/hl-claude.ts", old_string: "export const a = 1;", new_string: "export const a = 7; // claude edited a hard link of a held file" } },
    { tool: "Write", input: { file_path: project + "/held/new.txt", content: "claude wrote a held path\n" } },
    { tool: "Bash", input: { command: cEcho, description: "Write a held file" } },
    { tool: "Bash", input: { command: cSlip, description: "Run a script that writes a held file" } },
    { text: "Claude Code turn done." }],
  codex: [
    { tool: "apply_patch", input: { input: patch } },
    { tool: "apply_patch", input: { input: other("alias/../a.ts") } },
    { tool: "apply_patch", input: { input: other("hl-codex.ts") } },
    { tool: "apply_patch", input: { input: heldPatch } },
    { tool: "exec_command", input: { cmd: xEcho } },
    { tool: "exec_command", input: { cmd: "echo codex-alias >> alias/../a.ts" } },
    { tool: "exec_command", input: { cmd: xSlip } },
    { text: "Codex turn done." }],
  codexstdin: [
    { tool: "exec_command", input: { cmd: "sh", tty: true, yield_time_ms: 1000 } },
    { tool: "write_stdin", input: { chars: "echo codex-stdin-slipped >> held/file.txt\n", yield_time_ms: 1000 }, from_output: { session_id: "session ID (\\d+)" } },
    { tool: "write_stdin", input: { chars: "exit\n", yield_time_ms: 1000 }, from_output: { session_id: "session ID (\\d+)" } },
    { text: "Codex write_stdin turn done." }],
  gemini: [
    { tool: "write_file", input: { file_path: "src/a.ts", content: "export const a = 4; // gemini wrote a held file\n" } },
    { tool: "replace", input: { file_path: project + "/hl-gemini.ts", old_string: "export const a = 1;", new_string: "export const a = 8; // gemini replaced in a hard link of a held file", instruction: "Change a." } },
    { tool: "run_shell_command", input: { command: gEcho } },
    { tool: "run_shell_command", input: { command: gSlip } },
    { text: "Gemini CLI turn done." }],
  opencode: [
    { tool: "edit", input: { filePath: project + "/src/a.ts", oldString: "export const a = 1;", newString: "export const a = 6; // opencode edited a held file" } },
    { tool: "write", input: { filePath: project + "/held/new.txt", content: "opencode wrote a held path\n" } },
    { tool: "bash", input: { command: "echo opencode-bash > held/file.txt", description: "Write a held file" } },
    { tool: "bash", input: { command: "sh tools/w.sh opencode", description: "Run a script that writes a held file" } },
    { text: "OpenCode turn done." }],
}, null, 1));' "$DENY_STUB_SCRIPT" "$DENY_PROJECT" "$PATCH"

if command -v claude >/dev/null; then
  section "deny: Claude Code $(claude --version 2>/dev/null | head -1), a fresh session outside the channel"
  deny_turn claude anthropic CLAUDE_DENY_ENV claude -p "[stub:claude] Edit the held files." --allowedTools Read Edit Write Bash \
    --output-format stream-json --verbose
  deny_show claude
  deny_edit_verdict claude-deny-edit Edit "$(deny_nth_result claude Edit 0)"
  deny_edit_verdict claude-deny-hard-link Edit "$(deny_nth_result claude Edit 1)" "an Edit of hl-claude.ts, a hard link of src/a.ts"
  deny_write_verdict claude-deny-write Write "$(deny_result claude Write)"
  deny_shell_verdict claude-deny-shell Bash claude "$(deny_result claude Bash 'OpenComms')"
  deny_notice_verdict claude-shell-notice Bash claude "$(deny_json "$DENY/claude.json" "s.found['your shell command changed']")"
fi

if command -v codex >/dev/null; then
  section "deny: Codex $(codex --version 2>/dev/null | head -1) (codex exec), a fresh session outside the channel"
  deny_turn codex responses CODEX_DENY_ENV codex exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox \
    "[stub:codex] Patch the held files."
  deny_show codex
  deny_edit_verdict codex-deny-apply-patch apply_patch "$(deny_nth_result codex apply_patch 0)" \
    "requests: $(grep -c . "$DENY_STUB_LOG"); stderr: $(grep -v '^WARNING\|^Reading' "$DENY/codex.stderr" | head -c 300)"
  deny_edit_verdict codex-deny-alias-dotdot apply_patch "$(deny_nth_result codex apply_patch 1)" "a patch of alias/../a.ts, alias -> src/sub"
  deny_edit_verdict codex-deny-hard-link apply_patch "$(deny_nth_result codex apply_patch 2)" "a patch of hl-codex.ts, a hard link of src/a.ts"
  DOTDOT_HELD="$(deny_nth_result codex apply_patch 3)"
  ! grep -q codex-patched-held "$DENY_PROJECT/held/file.txt" && names_holder "$DOTDOT_HELD" \
    && deny_verdict codex-deny-dotdot-folded pass "apply_patch of alias/../held/file.txt (Codex folds the .. and writes held/file.txt) refused, file unchanged; shown: $(short "$DOTDOT_HELD" 200)" \
    || deny_verdict codex-deny-dotdot-folded fail "held/file.txt: $(tr '\n' '|' <"$DENY_PROJECT/held/file.txt"); apply_patch result: $(short "${DOTDOT_HELD:-none}")"
  deny_edit_verdict codex-deny-shell-alias-dotdot exec_command "$(deny_nth_result codex exec_command 1)" "\`echo codex-alias >> alias/../a.ts\`"
  deny_shell_verdict codex-deny-shell exec_command codex "$(deny_result codex exec_command 'OpenComms')"
  deny_notice_verdict codex-shell-notice exec_command codex "$(deny_json "$DENY/codex.json" "s.found['your shell command changed']")"

  section "deny: Codex write_stdin into an interactive sh (a second codex exec turn)"
  EVENTS_BEFORE="$( [ -f "$DENY_CODEX_EVENTS" ] && wc -l <"$DENY_CODEX_EVENTS" || echo 0)"
  deny_turn codex-stdin responses CODEX_DENY_ENV codex exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox \
    "[stub:codexstdin] Type into a shell."
  deny_show codex-stdin
  # The hook events of this turn: event name, tool_name, tool_input, tool_use_id.
  STDIN_EVENTS="$(tail -n +"$((EVENTS_BEFORE + 1))" "$DENY_CODEX_EVENTS" 2>/dev/null | node -e 'let s = ""; process.stdin.on("data", (d) => { s += d; }).on("end", () => {
const events = s.split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return {}; } });
process.stdout.write(events.map((e) => `${e.hook_event_name} ${e.tool_name} ${JSON.stringify(e.tool_input)} ${e.tool_use_id}`).join("; ")); });')"
  echo "  hook events Codex sent in this turn: ${STDIN_EVENTS:-none}"
  if [[ -n "$STDIN_EVENTS" && "$STDIN_EVENTS" != *write_stdin* && "$STDIN_EVENTS" == *'PreToolUse Bash {"command":"sh"}'* && "$STDIN_EVENTS" == *'PostToolUse Bash {"command":"sh"}'* ]]; then
    deny_verdict codex-write-stdin-events pass "no hook event names write_stdin; PreToolUse and PostToolUse Bash {\"command\":\"sh\"} share the exec call's id: $(short "$STDIN_EVENTS" 400)"
  else
    deny_verdict codex-write-stdin-events fail "expected Bash sh before and after and nothing named write_stdin; saw: ${STDIN_EVENTS:-none}"
  fi
  STDIN_SEEN="$(deny_json "$DENY/codex-stdin.json" "s.found['your shell command changed']")"
  if held_has codex-stdin-slipped && [ -n "$STDIN_SEEN" ]; then
    deny_verdict codex-write-stdin-notice pass "write_stdin typed \`echo codex-stdin-slipped >> held/file.txt\` into sh (no hook event to refuse it); once sh exited the model was shown: $STDIN_SEEN"
  else
    deny_verdict codex-write-stdin-notice fail "file has codex-stdin-slipped: $(held_has codex-stdin-slipped && echo yes || echo no); notice shown: ${STDIN_SEEN:-no}"
  fi
fi

if command -v gemini >/dev/null; then
  section "deny: Gemini CLI $(gemini --version 2>/dev/null | head -1) (gemini -p), a fresh session outside the channel"
  # -m: with a model named, Gemini CLI asks no router model first (the stub's
  # side answers are not the JSON the router wants, and it would retry for a minute).
  deny_turn gemini gemini GEMINI_DENY_ENV gemini -m gemini-2.5-pro -p "[stub:gemini] Write the held files." --approval-mode yolo --output-format json
  deny_show gemini
  deny_edit_verdict gemini-deny-write-file write_file "$(deny_result gemini write_file)" "stderr: $(tail -c 300 "$DENY/gemini.stderr")"
  deny_edit_verdict gemini-deny-hard-link replace "$(deny_result gemini replace)" "a replace in hl-gemini.ts, a hard link of src/a.ts"
  deny_shell_verdict gemini-deny-shell run_shell_command gemini "$(deny_result gemini run_shell_command 'OpenComms')"
  deny_notice_verdict gemini-shell-notice run_shell_command gemini "$(deny_json "$DENY/gemini.json" "s.found['your shell command changed']")"
fi

if command -v opencode >/dev/null; then
  section "deny: OpenCode $(opencode --version 2>/dev/null | head -1) (opencode run), a fresh session outside the channel"
  # OpenCode's Anthropic provider pointed at the stub; the plugin install wrote is all it has of OpenComms.
  printf '{"$schema":"https://opencode.ai/config.json","model":"anthropic/claude-sonnet-4-5","provider":{"anthropic":{"options":{"baseURL":"http://127.0.0.1:%s/v1","apiKey":"sk-offline-stub"}}}}\n' \
    "$DENY_PORT" >"$DENY_PROJECT/opencode.json"
  (cd "$DENY_PROJECT" && "${BASE_ENV[@]}" timeout 240 opencode run --format json "[stub:opencode] Edit the held files." \
    >"$DENY/opencode.jsonl" 2>"$DENY/opencode.stderr")
  # The error text of OpenCode's first call of TOOL (its JSON events: a tool part whose state is "error").
  opencode_error() {
    node -e 'const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean);
const parts = lines.map((l) => { try { return JSON.parse(l).part; } catch { return undefined; } }).filter((p) => p && p.type === "tool" && p.tool === process.argv[2]);
const part = parts.find((p) => p.state && p.state.status === "error") || parts[0];
process.stdout.write(part ? String(part.state.error ?? part.state.output ?? "") : "");' "$DENY/opencode.jsonl" "$1" 2>/dev/null
  }
  deny_edit_verdict opencode-deny-edit edit "$(opencode_error edit)" "stderr: $(tail -c 300 "$DENY/opencode.stderr")"
  deny_write_verdict opencode-deny-write write "$(opencode_error write)"
  deny_shell_verdict opencode-deny-shell bash opencode "$(opencode_error bash)"
  # What the model was sent back for the script's call: the tool result in the stub's log.
  OC_SEEN="$(node -e 'const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const texts = lines.flatMap((l) => (l.body && l.body.messages || []).flatMap((m) => Array.isArray(m.content) ? m.content : []))
  .filter((c) => c.type === "tool_result").map((c) => typeof c.content === "string" ? c.content : JSON.stringify(c.content));
const hit = texts.find((t) => t.includes("your shell command changed"));
process.stdout.write(hit ? hit.replace(/\s+/g, " ").slice(0, 300) : "");' "$DENY_STUB_LOG" 2>/dev/null)"
  deny_notice_verdict opencode-shell-notice bash opencode "$OC_SEEN"
fi

section "deny: the holder's inbox (system notices of the shell writes that slipped through)"
touch "$DENY_GO"
wait "$DENY_HOLDER_PID" 2>/dev/null
INBOX="$(deny_json "$DENY/holder.json" 's.inbox')"
NOTICES="$(deny_json "$DENY/holder.json" '(JSON.parse(s.inbox).data.messages || []).filter((m) => m.message_type === "system").map((m) => m.framed).join("\n")')"
printf '%s\n' "$NOTICES" | sed 's/^/  /'
for host in claude-code codex gemini-cli opencode; do
  command -v "${host%%-*}" >/dev/null || continue
  if printf '%s' "$NOTICES" | grep -q "held/file.txt, which you hold exclusively, changed during a shell command of a $host session"; then
    deny_verdict "holder-notice-$host" pass "the holder got a system message naming held/file.txt and the $host writer"
  else
    deny_verdict "holder-notice-$host" fail "no system message about the $host writer in the holder's inbox: $(short "${INBOX:-none}" 600)"
  fi
done
if command -v codex >/dev/null; then
  # Codex wrote held/file.txt twice: through the script, and by lines typed with write_stdin.
  CODEX_NOTICES="$(printf '%s' "$NOTICES" | grep -c "changed during a shell command of a codex session")"
  if [ "$CODEX_NOTICES" -ge 2 ]; then
    deny_verdict holder-notice-codex-write-stdin pass "the holder got $CODEX_NOTICES system messages about codex writes, one of them the lines typed with write_stdin"
  else
    deny_verdict holder-notice-codex-write-stdin fail "the holder got $CODEX_NOTICES system message(s) about codex writes, not 2"
  fi
fi
kill "$DENY_STUB_PID" 2>/dev/null
wait "$DENY_STUB_PID" 2>/dev/null

# Sourced by scripts/check-hosts.sh (uses its ROOT, DIST, WORK, HOME, PATH,
# TURN_PROJECT, TIMING_PROJECT, status, RESULT, RESULT_ORDER and section):
# the real `claude -p` through whole turns, offline, against
# scripts/stub-model.mjs. Every check prints one PASS or FAIL line.

TURNS="$WORK/turns"
STUB_SCRIPT="$TURNS/stub-script.json"
STUB_LOG="$TURNS/stub-requests.jsonl"
HOOK_LOG="$TURNS/hook-events.jsonl"
mkdir -p "$TURNS"
# CHECK_HOSTS_TURNS picks parts (space-separated): sessions (two sessions, resume,
# exit timing), reserve (edit reservations), stop (Stop hook forms), redis (two
# folders on one Redis project), trust (claude -p after a plain install); default all.
turn_part() { [ -z "${CHECK_HOSTS_TURNS:-}" ] || [[ " $CHECK_HOSTS_TURNS " == *" $1 "* ]]; }
: >"$STUB_LOG"
: >"$HOOK_LOG"

verdict() { # name, pass|fail, text
  local name=$1 outcome=$2 text=$3
  RESULT_ORDER+=("$name")
  if [ "$outcome" = pass ]; then
    RESULT[$name]="PASS $text"
    printf 'PASS %s: %s\n' "$name" "$text"
  else
    RESULT[$name]="FAIL $text"
    printf 'FAIL %s: %s\n' "$name" "$text"
    status=1
  fi
}

# jsq FILE EXPR: evaluates EXPR with `s` bound to FILE's JSON; prints it ('' for null/undefined).
jsq() {
  node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const v = eval(process.argv[2]); process.stdout.write(v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));' "$1" "$2" 2>/dev/null
}
# The member id the model saw in this turn's opencomms_status result.
status_member() { jsq "$TURNS/$1.json" '(s.tool_results.find((t) => /opencomms_status$/.test(t.name)) || { text: "" }).text.match(/"member_id":"([^"]+)"/)?.[1]'; }
# The text of this turn's result of TOOL (short name).
tool_text() { jsq "$TURNS/$1.json" "(s.tool_results.find((t) => t.name.endsWith('__$2')) || {}).text"; }
# The member state.json links to a Claude Code session id (the server's CLAUDE_CODE_SESSION_ID).
linked_member() { jsq "$TURN_PROJECT/.opencomms/state.json" "(s.session_links || {})['sid@claude-code:$1']?.member_id"; }
# The hook events (name[:source]) that ran for a session id, and whether each saw that id in CLAUDE_CODE_SESSION_ID too.
hooks_of() {
  node -e 'const [file, sid] = process.argv.slice(1);
const seen = require("fs").readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
  .filter((h) => h.event.session_id === sid);
process.stdout.write(seen.map((h) => h.event.hook_event_name + (h.event.source ? ":" + h.event.source : "")
  + (h.env_session === sid ? "" : "(env " + h.env_session + ")")).join(" "));' "$HOOK_LOG" "$1"
}
has_all_hooks() { # "list" names...
  local list=" $1 " name
  shift
  for name in "$@"; do [[ "$list" == *" $name"[\ :]* ]] || return 1; done
}

section "claude-code turns: stub model API on 127.0.0.1"
node "$ROOT/scripts/stub-model.mjs" --script "$STUB_SCRIPT" --log "$STUB_LOG" >"$TURNS/stub.out" 2>"$TURNS/stub.err" &
STUB_PID=$!
trap 'kill "$STUB_PID" 2>/dev/null; [ "${CHECK_HOSTS_KEEP:-}" = 1 ] || rm -rf "$WORK"' EXIT
STUB_PORT=
for _ in $(seq 1 100); do # up to 10 s for the stub to listen
  STUB_PORT="$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$TURNS/stub.out")"
  [ -n "$STUB_PORT" ] && break
  kill -0 "$STUB_PID" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$STUB_PORT" ]; then
  verdict claude-turns-stub fail "the stub model did not start: $(cat "$TURNS/stub.err")"
  return 0
fi
echo "stub model on 127.0.0.1:$STUB_PORT (pid $STUB_PID); requests logged to $STUB_LOG"
echo "claude $(claude --version 2>/dev/null | head -1)"

# Only what Claude Code needs, nothing from the caller's session (a CLAUDE_CODE_SESSION_ID
# inherited from a Claude Code that runs this script would name the wrong session).
CLAUDE_ENV=(env -i "PATH=$PATH" "HOME=$HOME" "TMPDIR=${TMPDIR:-/tmp}" "LANG=C.UTF-8"
  "XDG_CONFIG_HOME=$XDG_CONFIG_HOME" "XDG_DATA_HOME=$XDG_DATA_HOME" "XDG_CACHE_HOME=$XDG_CACHE_HOME" "XDG_STATE_HOME=$XDG_STATE_HOME"
  "ANTHROPIC_BASE_URL=http://127.0.0.1:$STUB_PORT" "ANTHROPIC_API_KEY=sk-offline-stub"
  "DISABLE_AUTOUPDATER=1" "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
FINDS=()
turn() { # name, project, claude args... (the stub's steps for its tag must be in STUB_SCRIPT)
  local name=$1 project=$2
  shift 2
  (cd "$project" && "${CLAUDE_ENV[@]}" node "$ROOT/scripts/claude-turn.mjs" --name "$name" --out "$TURNS" \
    --stub-log "$STUB_LOG" --timeout 150 "${FINDS[@]}" -- claude -p "$@" --output-format stream-json --verbose)
  FINDS=()
}
show_tools() { # name: the tool results the model saw, shortened
  jsq "$TURNS/$1.json" 's.tool_results.map((t) => "  " + t.name.replace(/^mcp__.*?__/, "") + " -> " + t.text.replace(/\s+/g, " ").slice(0, 260)).join("\n")'
  echo
}

# The project's host config, written the way a committed config would be: no member id.
# (Hooks also run a logger that records each event and the CLAUDE_CODE_SESSION_ID it was given.)
cat >"$TURNS/log-hook.cjs" <<'EOF'
let input = '';
process.stdin.setEncoding('utf8').on('data', (c) => { input += c; }).on('end', () => {
  let event;
  try { event = JSON.parse(input); } catch { event = { unparsed: input }; }
  const env = process.env;
  require('fs').appendFileSync(process.argv[2], `${JSON.stringify({ event, env_session: env.CLAUDE_CODE_SESSION_ID ?? null,
    project_dir: env.CLAUDE_PROJECT_DIR ?? null, entrypoint: env.CLAUDE_CODE_ENTRYPOINT ?? null, ppid: process.ppid })}\n`);
});
EOF
mkdir -p "$TURN_PROJECT/.claude"
node -e 'const [dist, project, logger, log] = process.argv.slice(1);
const fs = require("fs");
fs.writeFileSync(project + "/.mcp.json", JSON.stringify({ mcpServers: { opencomms: {
  type: "stdio", command: "node", args: [dist, "--project", project, "--host", "claude-code"] } } }, null, 2) + "\n");
const ours = `OPENCOMMS_HOST=claude-code node "${dist}" hook --project "${project}"`;
const hooks = {};
for (const e of ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"]) {
  hooks[e] = [{ hooks: [{ type: "command", command: ours, timeout: 15 }, { type: "command", command: `node "${logger}" "${log}"`, timeout: 15 }] }];
}
fs.writeFileSync(project + "/.claude/settings.json", JSON.stringify({ hooks }, null, 2) + "\n");' \
  "$DIST" "$TURN_PROJECT" "$TURNS/log-hook.cjs" "$HOOK_LOG"
echo "project $TURN_PROJECT: .mcp.json (node $DIST --project … --host claude-code, no OPENCOMMS_MEMBER_ID), .claude/settings.json (5 hooks)"

PING="PING-$(node -e 'process.stdout.write(require("crypto").randomBytes(4).toString("hex"))')"
S=mcp__opencomms__opencomms
cat >"$STUB_SCRIPT" <<EOF
{
  "a1": [{"tool": "${S}_status", "input": {}},
         {"tool": "${S}_create", "input": {"channel": "hosts-check", "role": "writer", "role_prompt": "You write the code."}},
         {"text": "Session A set up."}],
  "b1": [{"tool": "${S}_status", "input": {}},
         {"tool": "${S}_join", "input": {"channel": "hosts-check", "role": "reviewer", "role_prompt": "You review the code."}},
         {"tool": "${S}_send", "input": {"channel": "hosts-check", "to": "writer", "content": "$PING: please look at the lock code."}},
         {"text": "Session B sent its mail."}],
  "a2": [{"tool": "${S}_status", "input": {}}, {"text": "Session A is back."}],
  "trivial": [{"text": "Nothing to do."}],
  "p1": [{"tool": "mcp__plugin_opencomms_opencomms__opencomms_create", "input": {"channel": "timing", "role": "writer", "role_prompt": "You write."}},
         {"text": "Channel made."}]
}
EOF

if turn_part trust; then
# Issue 25: after a plain `opencomms install claude-code` and nothing else (no
# --allowedTools, no entry in ~/.claude.json), a headless claude -p may call an
# OpenComms tool: the allow rule install wrote in .claude/settings.local.json grants it.
section "claude-code turns: claude -p calls an OpenComms tool right after install, with no extra flag"
ALLOW_PROJECT="$WORK/allow-project"
mkdir -p "$ALLOW_PROJECT" && git -C "$ALLOW_PROJECT" init -q 2>/dev/null
node "$DIST" install claude-code --project "$ALLOW_PROJECT" >/dev/null
turn allow "$ALLOW_PROJECT" "[stub:a2] Am I on OpenComms?" >/dev/null
ALLOW_TEXT="$(tool_text allow opencomms_status)"
[[ "$ALLOW_TEXT" == *'"member_id"'* ]] && verdict claude-turns-allow pass "opencomms_status answered without --allowedTools: $(printf '%s' "$ALLOW_TEXT" | head -c 160)" \
  || verdict claude-turns-allow fail "opencomms_status after install: ${ALLOW_TEXT:-no result} (stderr: $(head -c 300 "$TURNS/allow.stderr"))"
fi

if turn_part sessions; then
# What Claude Code gives a project .mcp.json server and a project hook, whatever
# OpenComms makes of it: probe servers (each records what it got and exits) named
# four ways, and a SessionStart hook that records the same, in a git repository,
# with claude started at its root and in a subfolder. Facts, not checks.
section "claude-code turns: what a project .mcp.json server and hook are given (probe)"
PROBE_PROJECT="$WORK/probe-project"
mkdir -p "$PROBE_PROJECT/sub" "$PROBE_PROJECT/.claude"
git -C "$PROBE_PROJECT" init -q 2>/dev/null
cat >"$PROBE_PROJECT/probe.cjs" <<'EOF'
const e = process.env;
require('fs').appendFileSync(e.PROBE_LOG, `${JSON.stringify({ form: process.argv[2], cwd: process.cwd(),
  CLAUDE_PROJECT_DIR: e.CLAUDE_PROJECT_DIR ?? null, CLAUDE_CODE_SESSION_ID: e.CLAUDE_CODE_SESSION_ID ?? null,
  CLAUDE_CODE_ENTRYPOINT: e.CLAUDE_CODE_ENTRYPOINT ?? null, FROM_ENV_BLOCK: e.FROM_ENV_BLOCK ?? null })}\n`);
EOF
cat >"$PROBE_PROJECT/.mcp.json" <<EOF
{"mcpServers": {
  "relative": {"type": "stdio", "command": "node", "args": ["probe.cjs", "relative"], "env": {"PROBE_LOG": "$TURNS/probe.jsonl"}},
  "braced": {"type": "stdio", "command": "node", "args": ["\${CLAUDE_PROJECT_DIR}/probe.cjs", "braced"], "env": {"PROBE_LOG": "$TURNS/probe.jsonl"}},
  "default": {"type": "stdio", "command": "node", "args": ["\${CLAUDE_PROJECT_DIR:-.}/probe.cjs", "default"],
              "env": {"PROBE_LOG": "$TURNS/probe.jsonl", "FROM_ENV_BLOCK": "\${CLAUDE_PROJECT_DIR:-unset}"}},
  "absolute": {"type": "stdio", "command": "node", "args": ["$PROBE_PROJECT/probe.cjs", "absolute"], "env": {"PROBE_LOG": "$TURNS/probe.jsonl"}}
}}
EOF
cat >"$PROBE_PROJECT/.claude/settings.json" <<EOF
{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "node \"$TURNS/log-hook.cjs\" \"$TURNS/probe-hooks.jsonl\""}]}]}}
EOF
node -e 'const [file, ...projects] = process.argv.slice(1); const fs = require("fs"); const j = JSON.parse(fs.readFileSync(file, "utf8"));
for (const p of projects) j.projects[p] = { hasTrustDialogAccepted: true, enabledMcpjsonServers: ["relative", "braced", "default", "absolute"] };
fs.writeFileSync(file, JSON.stringify(j));' "$HOME/.claude.json" "$PROBE_PROJECT" "$PROBE_PROJECT/sub"
turn probe-root "$PROBE_PROJECT" "[stub:trivial] Probe." >/dev/null
turn probe-sub "$PROBE_PROJECT/sub" "[stub:trivial] Probe." >/dev/null
node -e 'const fs = require("fs"); const [turns, project] = process.argv.slice(1);
const read = (f) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
const probes = read(turns + "/probe.jsonl"); const hooks = read(turns + "/probe-hooks.jsonl");
const where = (dir) => (dir === project ? "the repo root" : dir === project + "/sub" ? "sub/" : String(dir));
for (const run of ["probe-root", "probe-sub"]) {
  const sid = JSON.parse(fs.readFileSync(`${turns}/${run}.json`, "utf8")).session_id;
  console.log(`claude -p started in ${run === "probe-root" ? "the repo root" : "sub/ (a subfolder of the repo)"}, session ${sid}:`);
  for (const form of ["relative", "braced", "default", "absolute"]) {
    const p = probes.find((x) => x.form === form && x.CLAUDE_CODE_SESSION_ID === sid);
    console.log(p === undefined ? `  INFO .mcp.json server "${form}": did not start (its script path did not resolve)`
      : `  INFO .mcp.json server "${form}": started; cwd ${where(p.cwd)}; CLAUDE_PROJECT_DIR ${where(p.CLAUDE_PROJECT_DIR)};`
        + ` CLAUDE_CODE_SESSION_ID ${p.CLAUDE_CODE_SESSION_ID === sid ? "= the session id" : p.CLAUDE_CODE_SESSION_ID};`
        + ` CLAUDE_CODE_ENTRYPOINT ${p.CLAUDE_CODE_ENTRYPOINT}` + (p.FROM_ENV_BLOCK === null ? "" : `; env "\${CLAUDE_PROJECT_DIR:-unset}" became "${p.FROM_ENV_BLOCK}"`));
  }
  const h = hooks.find((x) => x.event.session_id === sid);
  console.log(h === undefined ? "  INFO the repo root .claude/settings.json SessionStart hook: did not run"
    : `  INFO the repo root .claude/settings.json SessionStart hook: ran; event cwd ${where(h.event.cwd)}; CLAUDE_PROJECT_DIR ${where(h.project_dir)}`);
}' "$TURNS" "$PROBE_PROJECT"

section "claude-code turns: session A (new), calls opencomms_status and creates a channel"
turn a1 "$TURN_PROJECT" "[stub:a1] Who am I on OpenComms? Then open a channel." --allowedTools 'mcp__opencomms__*'
show_tools a1
SID_A="$(jsq "$TURNS/a1.json" 's.session_id')"
MEMBER_A="$(status_member a1)"
[[ "$MEMBER_A" == sess_* ]] && verdict claude-turns-session-a pass "session $SID_A sees member $MEMBER_A in opencomms_status" \
  || verdict claude-turns-session-a fail "session $SID_A: no member id in the opencomms_status result the model saw (stderr: $(head -c 300 "$TURNS/a1.stderr"))"

section "claude-code turns: session B (new, same project), status, join, send to the writer"
turn b1 "$TURN_PROJECT" "[stub:b1] Who am I on OpenComms? Then join and write to the writer." --allowedTools 'mcp__opencomms__*'
show_tools b1
SID_B="$(jsq "$TURNS/b1.json" 's.session_id')"
MEMBER_B="$(status_member b1)"
[[ "$MEMBER_B" == sess_* ]] && verdict claude-turns-session-b pass "session $SID_B sees member $MEMBER_B in opencomms_status" \
  || verdict claude-turns-session-b fail "session $SID_B: no member id in the opencomms_status result the model saw"
if [[ "$MEMBER_A" == sess_* && "$MEMBER_B" == sess_* && "$MEMBER_A" != "$MEMBER_B" && "$SID_A" != "$SID_B" ]]; then
  verdict claude-turns-two-members pass "two sessions, two members: A $MEMBER_A (session $SID_A), B $MEMBER_B (session $SID_B)"
else
  verdict claude-turns-two-members fail "A ${MEMBER_A:-none} (session $SID_A), B ${MEMBER_B:-none} (session $SID_B)"
fi

section "claude-code turns: what the server and the hooks were told"
echo "state.json session_links: $(jsq "$TURN_PROJECT/.opencomms/state.json" 'Object.entries(s.session_links || {}).map(([k, v]) => k + " -> " + v.member_id).join("; ")')"
for who in A B; do
  sid_var="SID_$who" member_var="MEMBER_$who"
  sid="${!sid_var}" member="${!member_var}"
  linked="$(linked_member "$sid")"
  [ -n "$sid" ] && [ "$linked" = "$member" ] \
    && verdict "claude-turns-server-session-$who" pass "the server linked sid@claude-code:$sid (its CLAUDE_CODE_SESSION_ID = the session id claude reports) to $member" \
    || verdict "claude-turns-server-session-$who" fail "no session link sid@claude-code:$sid -> $member (found: ${linked:-none}); was CLAUDE_CODE_SESSION_ID given to the .mcp.json server?"
  hooks="$(hooks_of "$sid")"
  has_all_hooks "$hooks" SessionStart UserPromptSubmit PostToolUse Stop SessionEnd && [[ "$hooks" != *"(env "* ]] \
    && verdict "claude-turns-hooks-$who" pass "hooks ran in -p with session_id $sid (and the same CLAUDE_CODE_SESSION_ID): $hooks" \
    || verdict "claude-turns-hooks-$who" fail "hooks seen for session $sid: ${hooks:-none}"
done
SEND_TEXT="$(tool_text b1 opencomms_send)"
if [[ "$SEND_TEXT" == *'"ok":true'* && "$SEND_TEXT" == *'"away"'* && "$SEND_TEXT" == *"$MEMBER_A"* ]]; then
  verdict claude-turns-send-away pass "B's send to A (whose -p session ended) was accepted and says A is away: $(printf '%s' "$SEND_TEXT" | head -c 300)"
else
  verdict claude-turns-send-away fail "B's send to A: $(printf '%s' "$SEND_TEXT" | head -c 400)"
fi

section "claude-code turns: session A again (--resume $SID_A)"
FINDS=(--find "$PING")
turn a2 "$TURN_PROJECT" "[stub:a2] Back again: who am I?" --resume "$SID_A" --allowedTools 'mcp__opencomms__*'
show_tools a2
SID_A2="$(jsq "$TURNS/a2.json" 's.session_id')"
MEMBER_A2="$(status_member a2)"
echo "resumed run reports session id $SID_A2 (first run: $SID_A); hooks: $(hooks_of "$SID_A2")"
[ -n "$MEMBER_A2" ] && [ "$MEMBER_A2" = "$MEMBER_A" ] \
  && verdict claude-turns-resume-member pass "--resume $SID_A sees member $MEMBER_A2 again (resumed session id $SID_A2, server link -> $(linked_member "$SID_A2"))" \
  || verdict claude-turns-resume-member fail "--resume $SID_A sees member ${MEMBER_A2:-none}, not $MEMBER_A (resumed session id $SID_A2; links: $(jsq "$TURN_PROJECT/.opencomms/state.json" 'Object.keys(s.session_links || {}).join(" ")'))"
SEEN="$(jsq "$TURNS/a2.json" "s.found['$PING']")"
TIMES="$(jsq "$TURNS/a2.json" "s.shown_times['$PING']")"
[ -n "$SEEN" ] && [ "$TIMES" = 1 ] && verdict claude-turns-resume-mail pass "the resumed session's model was shown B's mail once, in ${SEEN}" \
  || verdict claude-turns-resume-mail fail "the resumed session's model was shown B's mail ($PING) ${TIMES:-0} time(s)${SEEN:+, first in $SEEN}"

section "claude-code turns: how long a trivial headless turn takes to exit"
turn trivial-plain "$TURN_PROJECT" "[stub:trivial] Say nothing." --allowedTools 'mcp__opencomms__*'
echo "opencomms install claude-code --plugin --apply --project $TIMING_PROJECT"
(cd "$TIMING_PROJECT" && timeout 180 node "$DIST" install claude-code --plugin --apply --project "$TIMING_PROJECT" 2>&1) | sed -e 's/\x1b\[[0-9;]*m//g' | grep -E '^(member|running|wrote .*hooks)' | head -5
turn trivial-plugin-0 "$TIMING_PROJECT" "[stub:trivial] Say nothing (member in no channel yet)." --allowedTools 'mcp__plugin_opencomms_opencomms__*'
turn plugin-create "$TIMING_PROJECT" "[stub:p1] Open a channel." --allowedTools 'mcp__plugin_opencomms_opencomms__*'
show_tools plugin-create
turn trivial-plugin "$TIMING_PROJECT" "[stub:trivial] Say nothing (member in a channel)." --allowedTools 'mcp__plugin_opencomms_opencomms__*'
echo "INFO Stop hooks of these claude -p runs see CLAUDE_CODE_ENTRYPOINT=$(node -e 'const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
process.stdout.write([...new Set(lines.filter((h) => h.event.hook_event_name === "Stop").map((h) => String(h.entrypoint)))].join(","));' "$HOOK_LOG") (the logger hook of the turn project)"
echo "processes of the timing project still running after the last run: $(pgrep -f -- "$TIMING_PROJECT" | xargs -r ps -o pid=,etimes=,args= -p 2>/dev/null | sed -e 's/  */ /g' | cut -c1-160 | tr '\n' ';')"
secs() { jsq "$TURNS/$1.json" "s.$2 === null ? '?' : (s.$2 / 1000).toFixed(2) + ' s'"; }
echo "wall time / exit after the turn ended:"
for name in trivial-plain trivial-plugin-0 plugin-create trivial-plugin; do
  printf '  %-18s %9s  %9s\n' "$name" "$(secs "$name" wall_ms)" "$(secs "$name" after_result_ms)"
done
AFTER="$(jsq "$TURNS/trivial-plugin.json" 's.after_result_ms')"
if [ -n "$AFTER" ] && [ "$AFTER" -le 2000 ]; then
  verdict claude-turns-plugin-exit pass "with the plugin, a trivial claude -p turn exits $(secs trivial-plugin after_result_ms) after the turn (without: $(secs trivial-plain after_result_ms))"
else
  verdict claude-turns-plugin-exit fail "with the plugin, a trivial claude -p turn exits $(secs trivial-plugin after_result_ms) after the turn ended (wall $(secs trivial-plugin wall_ms); without the plugin $(secs trivial-plain after_result_ms)); issue 15 item 3 wants <= 2 s"
fi

fi # sessions

# Edit reservations with the real host: `install claude-code` on a fresh project
# (its own PreToolUse hook, matcher Edit|Write|MultiEdit|NotebookEdit). Session A
# reserves src/a.ts and, still in its turn (a reservation of a member whose
# session ended is dropped, PROTOCOL 5.6), waits in a Bash call for a go file.
# Meanwhile session B's built-in Edit of src/a.ts must be denied, with a reason
# naming A. Then A is let go and releases; B (resumed) writes the file and mails
# A while A's model is held at its last answer, so the mail can only reach A
# through our Stop hook: as Stop context from Claude Code 2.1.163, a block
# before (a resumed B keeps its member only from 2.1.163 too).
# claude runs from the project root (Claude Code leaves ${CLAUDE_PROJECT_DIR}
# in .mcp.json unexpanded, so the server's path is relative to the cwd).
if turn_part reserve; then
section "claude-code turns: reservations (install claude-code; A reserves src/a.ts, B edits it)"
RES_PROJECT="$WORK/reserve-project"
mkdir -p "$RES_PROJECT/src"
git -C "$RES_PROJECT" init -q 2>/dev/null
RES_FILE="$RES_PROJECT/src/a.ts"
printf 'export const a = 1;\n' >"$RES_FILE"
RES_BEFORE="$(cat "$RES_FILE")"
node "$DIST" install claude-code --project "$RES_PROJECT" | grep -E '^wrote .claude'
node -e 'const [file, project] = process.argv.slice(1); const fs = require("fs"); const j = JSON.parse(fs.readFileSync(file, "utf8"));
j.projects[project] = { hasTrustDialogAccepted: true, enabledMcpjsonServers: ["opencomms"] };
fs.writeFileSync(file, JSON.stringify(j));' "$HOME/.claude.json" "$RES_PROJECT"
RES_NEW="export const a = 2; // written by session B after the release"
RES_PING="PING-STOP-$(node -e 'process.stdout.write(require("crypto").randomBytes(4).toString("hex"))')"
# A's Bash call: say it is ready, then wait (at most 100 s) for the go file.
RES_WAIT="touch '$TURNS/res-a-ready'; for i in \$(seq 1 1000); do [ -f '$TURNS/res-a-go' ] && exit 0; sleep 0.1; done; echo no go; exit 1"
node -e 'const [file, S, path, newText, wait, sent, ping] = process.argv.slice(1); const fs = require("fs"); const j = JSON.parse(fs.readFileSync(file, "utf8"));
Object.assign(j, {
  ra1: [{ tool: S + "_status", input: {} },
        { tool: S + "_create", input: { channel: "res-check", role: "writer", role_prompt: "You write src/a.ts." } },
        { tool: S + "_reserve", input: { channel: "res-check", paths: ["src/a.ts"], reason: "check-hosts reservation" } },
        { tool: "Bash", input: { command: wait, description: "Wait for the go file", timeout: 110000 } },
        { tool: S + "_release", input: { channel: "res-check" } },
        { text: "Reserved, waited, released.", after_file: sent }],
  rb1: [{ tool: S + "_status", input: {} },
        { tool: S + "_join", input: { channel: "res-check", role: "reviewer", role_prompt: "You review." } },
        { tool: "Read", input: { file_path: path } },
        { tool: "Edit", input: { file_path: path, old_string: "export const a = 1;", new_string: "export const a = 3; // B edited a reserved file" } },
        { text: "Tried to edit." }],
  rb2: [{ tool: "Read", input: { file_path: path } },
        { tool: "Write", input: { file_path: path, content: newText + "\n" } },
        { tool: S + "_send", input: { channel: "res-check", to: "writer", content: ping + ": src/a.ts is written." } },
        { text: "Wrote it." }],
});
fs.writeFileSync(file, JSON.stringify(j, null, 1));' "$STUB_SCRIPT" "$S" "$RES_FILE" "$RES_NEW" "$RES_WAIT" "$TURNS/res-b-sent" "$RES_PING"
RES_TOOLS=(--allowedTools 'mcp__opencomms__*' Read Edit Write Bash)
rm -f "$TURNS/res-a-ready" "$TURNS/res-a-go" "$TURNS/res-b-sent" "$TURNS/res-b-sent.waiting"
FINDS=(--find "$RES_PING")
turn ra1 "$RES_PROJECT" "[stub:ra1] Reserve src/a.ts, wait, release." "${RES_TOOLS[@]}" >"$TURNS/ra1.out" &
RES_A_PID=$!
for _ in $(seq 1 600); do # up to 60 s for A to hold the reservation and wait
  [ -f "$TURNS/res-a-ready" ] && break
  kill -0 "$RES_A_PID" 2>/dev/null || break
  sleep 0.1
done
echo "session A is $([ -f "$TURNS/res-a-ready" ] && echo 'in its turn, holding src/a.ts' || echo 'NOT waiting (it ended or never got there)')"
turn rb1 "$RES_PROJECT" "[stub:rb1] Join and edit src/a.ts." "${RES_TOOLS[@]}"
show_tools rb1
RSID_B="$(jsq "$TURNS/rb1.json" 's.session_id')"
RES_AFTER_B="$(cat "$RES_FILE")"
touch "$TURNS/res-a-go"
# A releases, and its model is held at the turn's last answer (the stub's after_file):
# B now writes the file and mails A, after A's last tool call, so only A's Stop hook can hand it over.
for _ in $(seq 1 600); do
  [ -f "$TURNS/res-b-sent.waiting" ] && break
  kill -0 "$RES_A_PID" 2>/dev/null || break
  sleep 0.1
done
turn rb2 "$RES_PROJECT" "[stub:rb2] Now write src/a.ts and tell the writer." --resume "$RSID_B" "${RES_TOOLS[@]}"
show_tools rb2
touch "$TURNS/res-b-sent"
wait "$RES_A_PID"
cat "$TURNS/ra1.out"
show_tools ra1
RMEMBER_A="$(status_member ra1)"
RES_DENY="$(jsq "$TURNS/rb1.json" "(s.tool_results.find((t) => t.name === 'Edit') || {}).text")"
if [[ "$RMEMBER_A" == sess_* && "$RES_AFTER_B" == "$RES_BEFORE" && "$RES_DENY" == *"$RMEMBER_A"* && "$RES_DENY" == *reserved* ]]; then
  verdict claude-turns-reserve-deny pass "B's Edit of src/a.ts was not made (file unchanged) and B's model was shown: $RES_DENY"
else
  verdict claude-turns-reserve-deny fail "A ${RMEMBER_A:-no member}; src/a.ts after B's Edit: $(printf '%s' "$RES_AFTER_B" | head -c 120); B's Edit result: ${RES_DENY:-none}"
fi
RES_WRITE="$(jsq "$TURNS/rb2.json" "(s.tool_results.find((t) => t.name === 'Write') || {}).text")"
RES_RELEASE="$(tool_text ra1 opencomms_release)"
if [[ "$RES_RELEASE" == *'"ok":true'* && "$RES_RELEASE" == *src/a.ts* && "$(cat "$RES_FILE")" == "$RES_NEW" ]]; then
  verdict claude-turns-reserve-release pass "A released ($(printf '%s' "$RES_RELEASE" | head -c 120)); then B's Write went through: src/a.ts is \"$RES_NEW\""
else
  verdict claude-turns-reserve-release fail "A's release: ${RES_RELEASE:-none}; src/a.ts is \"$(head -c 160 "$RES_FILE")\"; B's Write result: ${RES_WRITE:-none}"
fi
# Our Stop answer with this claude: mail as Stop context from 2.1.163 (AI_AGENT), a block before.
CLAUDE_VERSION="$(claude --version 2>/dev/null | sed -n 's/^\([0-9][0-9.]*\).*/\1/p' | head -1)"
if printf '%s\n%s\n' 2.1.163 "$CLAUDE_VERSION" | sort -V -C; then RES_FORM="Stop hook additional context"; else RES_FORM="Stop hook feedback"; fi
RES_SEEN="$(jsq "$TURNS/ra1.json" "s.found['$RES_PING']")"
RES_TIMES="$(jsq "$TURNS/ra1.json" "s.shown_times['$RES_PING']")"
RES_USER="$(grep -c "$RES_PING" "$TURNS/ra1.stream.jsonl")"
if [[ "$RES_SEEN" == *"$RES_FORM"* && "$RES_TIMES" = 1 && "$(jsq "$TURNS/ra1.json" 's.exit_code')" = 0 ]]; then
  verdict claude-turns-stop-mail pass "mail sent after A's last tool call went on with A's turn through our Stop hook (claude $CLAUDE_VERSION: \"$RES_FORM\"), shown once: $RES_SEEN; stream-json lines naming it: $RES_USER"
else
  verdict claude-turns-stop-mail fail "claude $CLAUDE_VERSION, expected \"$RES_FORM\": A's model was shown the mail ${RES_TIMES:-0} time(s)${RES_SEEN:+, first in $RES_SEEN}; A's hooks: $(jsq "$TURNS/ra1.json" 's.hooks.join(" ")')"
fi
fi

# Issue 15 item 4: how Claude Code shows a Stop hook's mail to the model and
# to the user, for each way a Stop hook may answer. A probe Stop hook hands
# over one piece of mail (a marker in a framed text) the first time a turn
# stops, in the form named by $TURNS/stop-mode; the stub model's request log
# shows what the model was given next, and the stream-json what the user saw.
if turn_part stop; then
section "claude-code turns: how a Stop hook's mail reaches the model (issue 15 item 4)"
STOP_PROJECT="$WORK/stop-project"
mkdir -p "$STOP_PROJECT/.claude"
cat >"$TURNS/stop-probe.cjs" <<'EOF'
const fs = require('fs');
const [log, modeFile] = process.argv.slice(2);
let input = '';
process.stdin.setEncoding('utf8').on('data', (c) => { input += c; }).on('end', () => {
  const event = JSON.parse(input);
  const mode = fs.readFileSync(modeFile, 'utf8').trim();
  fs.appendFileSync(log, `${JSON.stringify({ mode, stop_hook_active: event.stop_hook_active })}\n`);
  if (event.stop_hook_active) { process.stdout.write('{}\n'); return; }
  const mail = '[OpenComms: 1 new message from your channel peers, each framed below with its channel.]\n\n'
    + `<<<UNTRUSTED channel "c" from reviewer>>>\nMAIL-${mode}: please look at the lock code.\n<<<END UNTRUSTED>>>\n\n`
    + '[OpenComms: the messages above came from your channel peers while you worked. Consider them before you finish.]';
  if (mode === 'block') process.stdout.write(`${JSON.stringify({ decision: 'block', reason: mail })}\n`);
  else if (mode === 'exit2') { process.stderr.write(mail); process.exitCode = 2; }
  else if (mode === 'context') process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'Stop', additionalContext: mail } })}\n`);
  else if (mode === 'block-context') process.stdout.write(`${JSON.stringify({ decision: 'block', reason: 'New mail from your channel peers (in the context).',
    hookSpecificOutput: { hookEventName: 'Stop', additionalContext: mail } })}\n`);
});
EOF
cat >"$STOP_PROJECT/.claude/settings.json" <<EOF
{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "node \"$TURNS/stop-probe.cjs\" \"$TURNS/stop-probe.jsonl\" \"$TURNS/stop-mode\"", "timeout": 15}]}]}}
EOF
node -e 'const [file, project] = process.argv.slice(1); const fs = require("fs"); const j = JSON.parse(fs.readFileSync(file, "utf8"));
j.projects[project] = { hasTrustDialogAccepted: true }; fs.writeFileSync(file, JSON.stringify(j));' "$HOME/.claude.json" "$STOP_PROJECT"
node -e 'const fs = require("fs"); const j = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
j.stopv = [{ text: "First answer." }, { text: "Second answer, after the mail." }]; fs.writeFileSync(process.argv[1], JSON.stringify(j, null, 1));' "$STUB_SCRIPT"
for mode in block exit2 context block-context; do
  printf '%s\n' "$mode" >"$TURNS/stop-mode"
  STOP_SEQ="$(wc -l <"$STUB_LOG")"
  turn "stop-$mode" "$STOP_PROJECT" "[stub:stopv] Answer." >/dev/null
  node -e 'const fs = require("fs"); const [log, from, stream, mode] = process.argv.slice(1); const mark = "MAIL-" + mode;
const reqs = fs.readFileSync(log, "utf8").split("\n").filter(Boolean).slice(Number(from)).map((l) => JSON.parse(l))
  .filter((r) => r.path === "/v1/messages" && Array.isArray(r.body.tools) && r.body.tools.length > 0);
let shown = null;
for (const r of reqs) for (const m of r.body.messages || []) {
  const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content || [];
  for (const b of blocks) if (!shown && JSON.stringify(b).includes(mark)) shown = { role: m.role, block: b };
}
const events = fs.readFileSync(stream, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const result = events.find((e) => e.type === "result") || {};
const seen = events.filter((e) => JSON.stringify(e).includes(mark) || (e.type === "system" && /hook/.test(e.subtype || "")))
  .map((e) => JSON.stringify(e).replace(/"(session_id|uuid|parent_tool_use_id)":"[^"]*",?/g, "").slice(0, 700));
console.log(`--- Stop hook answer "${mode}": ${reqs.length} main-loop request(s); turn result ${JSON.stringify(result.result)} (is_error ${result.is_error}, subtype ${result.subtype}, num_turns ${result.num_turns})`);
console.log(shown ? `INFO model shown the mail as a ${shown.role} ${shown.block.type} block: ${JSON.stringify(shown.block.text ?? shown.block)}` : "INFO the model was never shown the mail");
for (const s of seen) console.log(`INFO stream-json: ${s}`);
fs.writeFileSync(process.argv[3] + ".verdict", JSON.stringify({ continued: reqs.length >= 2, shown: !!shown }));' \
    "$STUB_LOG" "$STOP_SEQ" "$TURNS/stop-$mode.stream.jsonl" "$mode"
done
fi

# Across machines with the real host: a redis-server on a free loopback port,
# two projects in different folders ("two machines"), each set up by
# `install claude-code --store redis://…` (the password only in the host's
# environment). Session A (folder A) opens a channel; session B (folder B)
# joins it and mails the writer; A, resumed in folder A, must be shown B's
# mail once: it crossed from one folder to the other through Redis only.
if turn_part redis && command -v redis-server >/dev/null; then
section "claude-code turns: two folders on one Redis project (install --store)"
R_PORT="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { process.stdout.write(String(s.address().port)); s.close(); });')"
R_PASS="check-hosts-$(node -e 'process.stdout.write(require("crypto").randomBytes(8).toString("hex"))')"
R_DIR="$WORK/redis"
mkdir -p "$R_DIR"
printf 'port %s\nbind 127.0.0.1\nsave ""\nappendonly no\nrequirepass %s\ndir %s\n' "$R_PORT" "$R_PASS" "$R_DIR" >"$R_DIR/redis.conf"
redis-server "$R_DIR/redis.conf" >"$R_DIR/redis.log" 2>&1 &
R_PID=$!
for _ in $(seq 1 100); do grep -q 'Ready to accept' "$R_DIR/redis.log" && break; sleep 0.1; done
echo "redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on 127.0.0.1:$R_PORT (pid $R_PID)"
R_URL="redis://127.0.0.1:$R_PORT/0"
R_A="$WORK/machine-a/acme"
R_B="$WORK/machine-b/acme"
for project in "$R_A" "$R_B"; do
  mkdir -p "$project"
  git -C "$project" init -q 2>/dev/null
  OPENCOMMS_PROJECT_ID=hosts-redis node "$DIST" install claude-code --store "$R_URL" --project "$project" | grep -E '^(wrote|export|set)' | head -4
done
node -e 'const [file, ...projects] = process.argv.slice(1); const fs = require("fs"); const j = JSON.parse(fs.readFileSync(file, "utf8"));
for (const p of projects) j.projects[p] = { hasTrustDialogAccepted: true, enabledMcpjsonServers: ["opencomms"] };
fs.writeFileSync(file, JSON.stringify(j));' "$HOME/.claude.json" "$R_A" "$R_B"
R_PING="PING-REDIS-$(node -e 'process.stdout.write(require("crypto").randomBytes(4).toString("hex"))')"
node -e 'const [file, S, ping] = process.argv.slice(1); const fs = require("fs"); const j = JSON.parse(fs.readFileSync(file, "utf8"));
Object.assign(j, {
  xa1: [{ tool: S + "_status", input: {} },
        { tool: S + "_create", input: { channel: "across", role: "writer", role_prompt: "You write the code." } },
        { text: "Machine A set up." }],
  xb1: [{ tool: S + "_join", input: { channel: "across", role: "reviewer", role_prompt: "You review." } },
        { tool: S + "_send", input: { channel: "across", to: "writer", content: ping + ": reviewed on machine B." } },
        { text: "Machine B sent its mail." }],
  xa2: [{ tool: S + "_status", input: {} }, { text: "Machine A is back." }],
});
fs.writeFileSync(file, JSON.stringify(j, null, 1));' "$STUB_SCRIPT" "$S" "$R_PING"
# The host's environment carries the password, as docs/redis.md asks; nothing else of ours.
CLAUDE_ENV_PLAIN=("${CLAUDE_ENV[@]}")
CLAUDE_ENV+=("OPENCOMMS_STORE_PASSWORD=$R_PASS")
turn xa1 "$R_A" "[stub:xa1] Open a channel." --allowedTools 'mcp__opencomms__*'
show_tools xa1
XSID_A="$(jsq "$TURNS/xa1.json" 's.session_id')"
XMEMBER_A="$(status_member xa1)"
turn xb1 "$R_B" "[stub:xb1] Join and mail the writer." --allowedTools 'mcp__opencomms__*'
show_tools xb1
FINDS=(--find "$R_PING")
turn xa2 "$R_A" "[stub:xa2] Back again." --resume "$XSID_A" --allowedTools 'mcp__opencomms__*'
show_tools xa2
CLAUDE_ENV=("${CLAUDE_ENV_PLAIN[@]}")
R_SEEN="$(jsq "$TURNS/xa2.json" "s.found['$R_PING']")"
R_TIMES="$(jsq "$TURNS/xa2.json" "s.shown_times['$R_PING']")"
R_FILES="$(ls "$R_A/.opencomms" "$R_B/.opencomms" 2>/dev/null | grep -c 'state.json')"
[[ "$(tool_text xb1 opencomms_join)" == *'"ok":true'* ]] \
  && verdict claude-turns-redis-join pass "machine B's session joined the channel machine A's session opened (member A $XMEMBER_A)" \
  || verdict claude-turns-redis-join fail "machine B's join: $(tool_text xb1 opencomms_join | head -c 300)"
[ -n "$R_SEEN" ] && [ "$R_TIMES" = 1 ] && [ "$R_FILES" = 0 ] \
  && verdict claude-turns-redis-mail pass "machine A's resumed session was shown machine B's mail once, in $R_SEEN; no state.json in either folder (the state is in Redis)" \
  || verdict claude-turns-redis-mail fail "machine A was shown B's mail ($R_PING) ${R_TIMES:-0} time(s)${R_SEEN:+, first in $R_SEEN}; state.json files in the folders: $R_FILES"
kill "$R_PID" 2>/dev/null
wait "$R_PID" 2>/dev/null
fi

kill "$STUB_PID" 2>/dev/null
wait "$STUB_PID" 2>/dev/null

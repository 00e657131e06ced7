# Sourced by scripts/check-hosts.sh (uses its ROOT, DIST, WORK, HOME, PATH,
# XDG_*, status, RESULT, RESULT_ORDER and section): what doctor says of host
# configs the host would refuse or mis-start, with the real Claude Code
# (`claude -p`) against scripts/stub-model.mjs on 127.0.0.1, offline.
#   1. A .mcp.json with a comment: doctor names its line, install refuses to
#      write into it (every byte kept), and what the real claude makes of it.
#   2. A clone of a project whose committed .mcp.json and .claude/settings.json
#      name the first checkout absolutely (the form older installs wrote): a
#      Claude Code session in the clone is a member of the FIRST checkout's
#      store; doctor in the clone fails each such line, doctor --fix points
#      them at the clone, and a session in the clone is then a member of the
#      clone's store (.opencomms/state.json there), none in the first's.
# Every check prints one PASS or FAIL line.

CLONE="$WORK/clone-check"
CLONE_STUB_SCRIPT="$CLONE/stub-script.json"
CLONE_STUB_LOG="$CLONE/stub-requests.jsonl"
mkdir -p "$CLONE"
: >"$CLONE_STUB_LOG"

clone_verdict() { # name, pass|fail, text
  local name=$1 outcome=$2 text=$3
  RESULT_ORDER+=("$name")
  if [ "$outcome" = pass ]; then RESULT[$name]="PASS $text"; printf 'PASS %s: %s\n' "$name" "$text"
  else RESULT[$name]="FAIL $text"; printf 'FAIL %s: %s\n' "$name" "$text"; status=1; fi
}
# clone_json FILE EXPR: EXPR with `s` bound to FILE's JSON ('' for null/undefined or an unreadable file).
clone_json() {
  node -e 'let s; try { s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); } catch { process.exit(0); }
const v = eval(process.argv[2]); process.stdout.write(v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));' "$1" "$2" 2>/dev/null
}
git_q() { git -c user.name=check -c user.email=check@example.invalid -c commit.gpgsign=false "$@"; }

section "clone: a .mcp.json with a comment (Claude Code reads it as strict JSON)"
COMMENTED="$CLONE/commented"
mkdir -p "$COMMENTED" && git -C "$COMMENTED" init -q 2>/dev/null
printf '{\n  // my servers\n  "mcpServers": {}\n}\n' >"$COMMENTED/.mcp.json"
BEFORE_SUM="$(sha256sum "$COMMENTED/.mcp.json" | cut -d' ' -f1)"
DOC_OUT="$(node "$DIST" doctor --project "$COMMENTED" 2>&1)"
DOC_LINE="$(printf '%s\n' "$DOC_OUT" | grep -m1 '\.mcp\.json')"
echo "doctor: $DOC_LINE"
[[ "$DOC_LINE" == FAIL*'.mcp.json'*'line 2'* ]] && clone_verdict clone-comment-doctor pass "doctor: ${DOC_LINE:0:200}" \
  || clone_verdict clone-comment-doctor fail "doctor did not fail .mcp.json line 2: ${DOC_LINE:-no line} (exit output: ${DOC_OUT:0:300})"
INSTALL_OUT="$(node "$DIST" install claude-code --project "$COMMENTED" 2>&1)"; INSTALL_CODE=$?
echo "install claude-code: exit $INSTALL_CODE: ${INSTALL_OUT:0:300}"
AFTER_SUM="$(sha256sum "$COMMENTED/.mcp.json" | cut -d' ' -f1)"
[ "$INSTALL_CODE" = 1 ] && [ "$BEFORE_SUM" = "$AFTER_SUM" ] && clone_verdict clone-comment-install pass "install refused (exit 1), .mcp.json unchanged (sha256 ${AFTER_SUM:0:12})" \
  || clone_verdict clone-comment-install fail "install exit $INSTALL_CODE, sha256 before ${BEFORE_SUM:0:12} after ${AFTER_SUM:0:12}"
if command -v claude >/dev/null; then
  # What the host itself says of the file, for the record (not a verdict: its wording is its own).
  echo "INFO claude mcp list in that project: $(cd "$COMMENTED" && timeout 60 claude mcp list 2>&1 | sed -e 's/\x1b\[[0-9;]*m//g' | grep -v '^\s*$' | head -3 | tr '\n' ' ')"
fi

if ! command -v claude >/dev/null; then
  clone_verdict clone-claude fail "claude is not installed (see the host CLIs section above)"
  return 0
fi

section "clone: the stub model on 127.0.0.1"
S=mcp__opencomms__opencomms
cat >"$CLONE_STUB_SCRIPT" <<EOF
{ "who": [{"tool": "${S}_status", "input": {}},
          {"tool": "${S}_create", "input": {"channel": "clone-check", "role": "writer", "role_prompt": "You write."}},
          {"text": "Done."}] }
EOF
node "$ROOT/scripts/stub-model.mjs" --script "$CLONE_STUB_SCRIPT" --log "$CLONE_STUB_LOG" >"$CLONE/stub.out" 2>"$CLONE/stub.err" &
CLONE_STUB_PID=$!
trap 'kill "$CLONE_STUB_PID" 2>/dev/null; [ "${CHECK_HOSTS_KEEP:-}" = 1 ] || rm -rf "$WORK"' EXIT
CLONE_PORT=
for _ in $(seq 1 100); do # up to 10 s for the stub to listen
  CLONE_PORT="$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$CLONE/stub.out")"
  [ -n "$CLONE_PORT" ] && break
  kill -0 "$CLONE_STUB_PID" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$CLONE_PORT" ]; then
  clone_verdict clone-stub fail "the stub model did not start: $(cat "$CLONE/stub.err")"
  return 0
fi
echo "stub model on 127.0.0.1:$CLONE_PORT; claude $(claude --version 2>/dev/null | head -1)"
CLONE_ENV=(env -i "PATH=$PATH" "HOME=$HOME" "TMPDIR=${TMPDIR:-/tmp}" "LANG=C.UTF-8"
  "XDG_CONFIG_HOME=$XDG_CONFIG_HOME" "XDG_DATA_HOME=$XDG_DATA_HOME" "XDG_CACHE_HOME=$XDG_CACHE_HOME" "XDG_STATE_HOME=$XDG_STATE_HOME"
  "ANTHROPIC_BASE_URL=http://127.0.0.1:$CLONE_PORT" "ANTHROPIC_API_KEY=sk-offline-stub"
  "DISABLE_AUTOUPDATER=1" "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
clone_turn() { # name, project: one turn that calls opencomms_status and opencomms_create; prints the session id
  (cd "$2" && "${CLONE_ENV[@]}" node "$ROOT/scripts/claude-turn.mjs" --name "$1" --out "$CLONE" --stub-log "$CLONE_STUB_LOG" --timeout 150 \
    -- claude -p "[stub:who] Who am I on OpenComms? Then open a channel." --allowedTools 'mcp__opencomms__*' --output-format stream-json --verbose) >&2
  clone_json "$CLONE/$1.json" 's.session_id'
}
# The member a store links to a Claude Code session ('' when none).
member_in() { clone_json "$1/.opencomms/state.json" "(s.session_links || {})['sid@claude-code:$2']?.member_id"; }

section "clone: project A installed and committed, its Claude Code files naming A absolutely; git clone A B"
A="$CLONE/first checkout"
B="$CLONE/the clone"
mkdir -p "$A" && git -C "$A" init -q
node "$DIST" install claude-code --project "$A" >/dev/null || { clone_verdict clone-setup fail "install claude-code in A failed"; return 0; }
node -e 'const [project] = process.argv.slice(1); const fs = require("fs");
const mcp = JSON.parse(fs.readFileSync(project + "/.mcp.json", "utf8"));
mcp.mcpServers.opencomms.args = [project + "/.opencomms/opencomms.js", "--project", project, "--host", "claude-code"];
fs.writeFileSync(project + "/.mcp.json", JSON.stringify(mcp, null, 2) + "\n");
const file = project + "/.claude/settings.json";
fs.writeFileSync(file, fs.readFileSync(file, "utf8").split("$CLAUDE_PROJECT_DIR").join(project));' "$A"
git_q -C "$A" add -A && git_q -C "$A" commit -q -m "opencomms installed"
git_q clone -q "$A" "$B"
node -e 'const [file, ...projects] = process.argv.slice(1); const fs = require("fs");
const j = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : { hasCompletedOnboarding: true, projects: {} };
j.projects ??= {};
for (const p of projects) j.projects[p] = { hasTrustDialogAccepted: true, enabledMcpjsonServers: ["opencomms"] };
fs.writeFileSync(file, JSON.stringify(j));' "$HOME/.claude.json" "$A" "$B"
echo "B/.mcp.json args: $(clone_json "$B/.mcp.json" 's.mcpServers.opencomms.args')"
A_CONFIGS_SUM="$(cd "$A" && cat .mcp.json .claude/settings.json | sha256sum | cut -d' ' -f1)"

section "clone: a Claude Code session in B before doctor --fix"
SID0="$(clone_turn clone-before "$B")"
IN_A="$(member_in "$A" "$SID0")"
IN_B="$(member_in "$B" "$SID0")"
echo "session ${SID0:-none}: member in A's store: ${IN_A:-none}; in B's store: ${IN_B:-none}"
[ -n "$SID0" ] && [ -n "$IN_A" ] && [ -z "$IN_B" ] && clone_verdict clone-before pass "the clone's session $SID0 is $IN_A in the FIRST checkout's store (the bug doctor must see)" \
  || clone_verdict clone-before fail "session ${SID0:-none}: A ${IN_A:-none}, B ${IN_B:-none} (stderr: $(head -c 300 "$CLONE/clone-before.stderr" 2>/dev/null))"

section "clone: doctor in B, then doctor --fix, then doctor"
node "$DIST" doctor --json --project "$B" >"$CLONE/doctor-1.json" 2>&1
node "$DIST" doctor --project "$B" 2>&1 | grep 'line [0-9]*)' | cut -c1-220
FOUND="$(clone_json "$CLONE/doctor-1.json" 's.checks.filter((c) => c.reason === "config_in_other_checkout").length')"
[ "${FOUND:-0}" = 8 ] && clone_verdict clone-doctor pass "$FOUND lines FAIL config_in_other_checkout (.mcp.json server and --project, 6 hook commands in .claude/settings.json: $(clone_json "$CLONE/doctor-1.json" 's.checks.filter((c) => c.reason === "config_in_other_checkout").map((c) => c.name.replace(/^.*\((.*)\)$/, "$1")).join(", ")'))" \
  || clone_verdict clone-doctor fail "${FOUND:-0} config_in_other_checkout findings (want 8): $(head -c 400 "$CLONE/doctor-1.json")"
node "$DIST" doctor --fix --project "$B" 2>&1 | grep '(fixed)' | grep 'line [0-9]*)' | head -3 | cut -c1-220
node "$DIST" doctor --json --project "$B" >"$CLONE/doctor-2.json" 2>&1
LEFT="$(node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); const a = process.argv[2];
process.stdout.write(String(s.checks.filter((c) => c.reason === "config_in_other_checkout" || c.message.includes(a)).length));' "$CLONE/doctor-2.json" "$A")"
echo "git -C B diff --stat: $(git -C "$B" diff --stat | tail -1)"
[ "$LEFT" = 0 ] && clone_verdict clone-fix pass "after doctor --fix no line names A; $(git -C "$B" diff --numstat | awk '{printf "%s +%s -%s; ", $3, $1, $2}')" \
  || clone_verdict clone-fix fail "$LEFT findings still name A: $(head -c 400 "$CLONE/doctor-2.json")"

section "clone: a Claude Code session in B after doctor --fix"
SID1="$(clone_turn clone-after "$B")"
IN_A="$(member_in "$A" "$SID1")"
IN_B="$(member_in "$B" "$SID1")"
CHANNEL_B="$(clone_json "$B/.opencomms/state.json" "Object.values(s.channels || {}).some((c) => c.name === 'clone-check' && c.members.some((m) => (m.member_id ?? m.id ?? m.session_id) === '$IN_B')) ? 'yes' : 'no'")"
echo "session ${SID1:-none}: member in B's store: ${IN_B:-none} (in clone-check there: ${CHANNEL_B:-?}); in A's store: ${IN_A:-none}"
echo "the model saw: $(clone_json "$CLONE/clone-after.json" '(s.tool_results.find((t) => /opencomms_status$/.test(t.name)) || { text: "" }).text.replace(/\s+/g, " ").slice(0, 200)')"
[ -n "$SID1" ] && [ -n "$IN_B" ] && [ -z "$IN_A" ] && clone_verdict clone-after pass "the clone's session $SID1 is $IN_B in B/.opencomms/state.json, and in nothing of A's" \
  || clone_verdict clone-after fail "session ${SID1:-none}: B ${IN_B:-none}, A ${IN_A:-none} (stderr: $(head -c 300 "$CLONE/clone-after.stderr" 2>/dev/null))"
A_AFTER_SUM="$(cd "$A" && cat .mcp.json .claude/settings.json | sha256sum | cut -d' ' -f1)"
[ "$A_CONFIGS_SUM" = "$A_AFTER_SUM" ] && [ -z "$(git -C "$A" status --porcelain -- .mcp.json .claude)" ] && clone_verdict clone-first-untouched pass "A's .mcp.json and .claude/settings.json unchanged (sha256 ${A_AFTER_SUM:0:12})" \
  || clone_verdict clone-first-untouched fail "A's configs changed: $(git -C "$A" status --porcelain | head -5 | tr '\n' ' ')"
kill "$CLONE_STUB_PID" 2>/dev/null

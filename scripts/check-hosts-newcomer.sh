# Sourced by scripts/check-hosts.sh (uses its ROOT, WORK, PATH, status,
# RESULT, RESULT_ORDER and section): a newcomer's first run, by the README
# alone, with the real Claude Code and Codex offline against
# scripts/stub-model.mjs.
#
# The person: `git clone` of this repository's committed HEAD into a temp
# folder, then the commands the README's first two sections show, in their
# order and as written (read from README.md itself; only /abs/project is
# replaced by a throwaway git project, and `npm test` is left out): npm ci,
# --help, install claude-code, install codex --apply, doctor (run once more
# at the end if the README's doctor comes before the last install). Doctor
# must say "No problems". Every command is timed; their sum is the person's
# wall time (target: 3 minutes).
#
# Then the README's "start a session in each host and ask" as real headless
# turns, in a HOME of the newcomer's own that holds nothing but a finished
# Claude Code onboarding and a Codex model provider pointed at the stub:
#   1. claude -p: create channel `review` as writer;
#   2. codex exec: join `review` as reviewer;
#   3. claude -p --resume: a review_request to the reviewer;
#   4. codex exec resume: pull, then a review_response with reply_to the request;
#   5. claude -p --resume: the answer reaches the model (hook or pull), and
#      opencomms_history shows the request's path ending in `answered`.
# Finally `opencomms status` (the person's view) must list no open request.
# Every check prints one PASS or FAIL line with its numbers.

NC="$WORK/newcomer"
NC_CLONE="$NC/opencomms"
NC_PROJECT="$NC/project"
NC_HOME="$NC/home"
NC_OUT="$NC/out"
NC_STUB_SCRIPT="$NC_OUT/stub-script.json"
NC_STUB_LOG="$NC_OUT/stub-requests.jsonl"
NC_CHANNEL=review
mkdir -p "$NC_PROJECT" "$NC_HOME/.codex" "$NC_OUT"
: >"$NC_STUB_LOG"
printf '{}\n' >"$NC_STUB_SCRIPT"

nc_verdict() { # name, pass|fail, text
  local name=$1 outcome=$2 text=$3
  RESULT_ORDER+=("$name")
  if [ "$outcome" = pass ]; then RESULT[$name]="PASS"; printf 'PASS %s: %s\n' "$name" "$text"
  else RESULT[$name]="FAIL"; printf 'FAIL %s: %s\n' "$name" "$text"; status=1; fi
}
# nc_json FILE EXPR: EXPR with `s` bound to FILE's JSON ('' for null/undefined or no file).
nc_json() {
  node -e 'let s; try { s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); } catch { process.exit(0); }
const v = eval(process.argv[2]); process.stdout.write(v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));' "$1" "$2" 2>/dev/null
}
# The text of turn TURN's first result of the OpenComms tool NAME (Claude Code: mcp__opencomms__NAME, Codex: NAME).
nc_result() { nc_json "$NC_OUT/$1.json" "(s.tool_results.find((t) => t.name === '$2' || t.name.endsWith('__$2')) || {}).text"; }
nc_short() { printf '%s' "$1" | tr '\n' ' ' | head -c "${2:-300}"; }
now_ms() { date +%s%3N; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }

# The newcomer's HOME: a Claude Code that has been through onboarding and a
# Codex whose model provider is the stub (a logged-in user has the like);
# no trust, approval or permission of any kind.
NC_BASE_ENV=(env -i "PATH=$PATH" "HOME=$NC_HOME" "TMPDIR=${TMPDIR:-/tmp}" "LANG=C.UTF-8"
  "XDG_CONFIG_HOME=$NC_HOME/.config" "XDG_DATA_HOME=$NC_HOME/.local/share" "XDG_CACHE_HOME=$NC_HOME/.cache"
  "XDG_STATE_HOME=$NC_HOME/.local/state")
# npm's cache stays the caller's (a warm cache is what a person who has used npm before has).
NC_PERSON_ENV=("${NC_BASE_ENV[@]}" "npm_config_cache=${npm_config_cache:-$HOME/.npm}")
printf '{"hasCompletedOnboarding":true}\n' >"$NC_HOME/.claude.json"

section "newcomer: the stub model on 127.0.0.1"
node "$ROOT/scripts/stub-model.mjs" --script "$NC_STUB_SCRIPT" --log "$NC_STUB_LOG" >"$NC_OUT/stub.out" 2>"$NC_OUT/stub.err" &
NC_STUB_PID=$!
# Stop the stub on any exit, then do what the exit did before (the other parts' clean-up, removing $WORK).
eval "set -- $(trap -p EXIT)"
trap "kill $NC_STUB_PID 2>/dev/null; ${3:-}" EXIT
NC_PORT=
for _ in $(seq 1 100); do # up to 10 s for the stub to listen
  NC_PORT="$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$NC_OUT/stub.out")"
  [ -n "$NC_PORT" ] && break
  kill -0 "$NC_STUB_PID" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$NC_PORT" ]; then
  nc_verdict newcomer-stub fail "the stub model did not start: $(head -c 300 "$NC_OUT/stub.err")"
  return 0
fi
echo "stub model on 127.0.0.1:$NC_PORT; claude $(claude --version 2>/dev/null | head -1); codex $(codex --version 2>/dev/null | head -1)"
# gpt-5.5: a model Codex knows (it then offers its usual tools, MCP ones behind tool_search).
cat >"$NC_HOME/.codex/config.toml" <<EOF
model_provider = "stub"
model = "gpt-5.5"

[model_providers.stub]
name = "stub"
base_url = "http://127.0.0.1:$NC_PORT/v1"
wire_api = "responses"
env_key = "STUB_API_KEY"
EOF
# The project the agents work on: an existing git repository with one file.
git -C "$NC_PROJECT" init -q 2>/dev/null
mkdir -p "$NC_PROJECT/src" && printf 'export const lock = () => true;\n' >"$NC_PROJECT/src/lock.ts"
git -C "$NC_PROJECT" add -A && git -C "$NC_PROJECT" -c user.name=newcomer -c user.email=newcomer@example.invalid commit -qm start

PERSON_MS=0
# nc_person LABEL TIMEOUT_S DIR CMD...: one command of the person, timed; output in $NC_OUT/person-N.log.
NC_STEP=0
nc_person() {
  local label=$1 limit=$2 dir=$3 started ms rc
  shift 3
  NC_STEP=$((NC_STEP + 1))
  started=$(now_ms)
  # The person's commands (say, read) need the person's terminal (scripts/lib/at-terminal.sh).
  (cd "$dir" && at_terminal "${NC_PERSON_ENV[@]}" timeout "$limit" "$@") </dev/null >"$NC_OUT/person-$NC_STEP.log" 2>&1
  rc=$?
  ms=$(( $(now_ms) - started ))
  PERSON_MS=$((PERSON_MS + ms))
  NC_LAST_LOG="$NC_OUT/person-$NC_STEP.log"
  printf '  $ %s\n    exit %s after %s s%s\n' "$label" "$rc" "$(secs "$ms")" "$([ "$rc" = 124 ] && echo " (timed out at $limit s)")"
  [ "$rc" = 0 ] || sed 's/^/    | /' "$NC_LAST_LOG" | tail -8
  NC_LAST_MS=$ms
  return $rc
}

section "newcomer: git clone, then the README's commands"
TOTAL_STARTED=$(now_ms)
if ! nc_person "git clone $ROOT opencomms" 300 "$NC" git clone -q "$ROOT" "$NC_CLONE"; then
  nc_verdict newcomer-clone fail "git clone failed: $(nc_short "$(cat "$NC_LAST_LOG")")"
  kill "$NC_STUB_PID" 2>/dev/null
  return 0
fi
nc_verdict newcomer-clone pass "cloned $(git -C "$NC_CLONE" rev-parse --short HEAD) ($(git -C "$NC_CLONE" log -1 --format=%s | head -c 80)) in $(secs "$NC_LAST_MS") s"

# The README's commands, in its order, from the fenced sh blocks and the inline
# `node dist/opencomms.js …` commands of its sections before "Talk to your agents";
# a comment after # is dropped, and so is `npm test` (timed elsewhere, not a set-up step).
node -e 'const text = require("fs").readFileSync(process.argv[1], "utf8");
const end = text.indexOf("\n## Talk to your agents");
const part = text.slice(0, end === -1 ? text.length : end);
const found = [];
for (const m of part.matchAll(/```sh\n([\s\S]*?)```|`(node dist\/opencomms\.js [^`]+)`/g)) {
  const lines = m[1] !== undefined ? m[1].split("\n") : [m[2]];
  for (const line of lines) {
    const cmd = line.replace(/\s+#.*$/, "").trim();
    if (cmd !== "" && cmd !== "npm test" && !found.includes(cmd)) found.push(cmd);
  }
}
process.stdout.write(found.join("\n") + "\n");' "$NC_CLONE/README.md" >"$NC_OUT/readme-commands.txt"
echo "the README's set-up commands (README.md of the clone, /abs/project is $NC_PROJECT):"
sed 's/^/  /' "$NC_OUT/readme-commands.txt"
README_OK=1
DOCTOR_OUT=
while IFS= read -r cmd; do
  [ -n "$cmd" ] || continue
  cmd="${cmd//\/abs\/project/$NC_PROJECT}"
  read -ra argv <<<"$cmd"
  limit=120
  [ "${argv[0]}" = npm ] && limit=600
  if nc_person "$cmd" "$limit" "$NC_CLONE" "${argv[@]}"; then
    [ "$cmd" = "npm ci" ] && NPM_CI_MS=$NC_LAST_MS
  else
    README_OK=0
    nc_verdict newcomer-readme-step fail "\`$cmd\` failed: $(nc_short "$(tail -5 "$NC_LAST_LOG")" 400)"
    break
  fi
  if [[ "$cmd" == *" doctor "* ]]; then
    DOCTOR_OUT="$(cat "$NC_LAST_LOG")"
    printf '%s\n' "$DOCTOR_OUT" | grep -E '^(FAIL|WARN)|No problems|Problems found' | cut -c1-240 | sed 's/^/    doctor: /'
  fi
  [[ "$cmd" == *" install codex"* ]] && grep -E '^(wrote|Codex trust)' "$NC_LAST_LOG" | cut -c1-200 | sed 's/^/    /'
done <"$NC_OUT/readme-commands.txt"
[ -n "${NPM_CI_MS:-}" ] && nc_verdict newcomer-npm-ci pass "npm ci (with its prepare build) took $(secs "$NPM_CI_MS") s; dist/opencomms.js $(wc -c <"$NC_CLONE/dist/opencomms.js" 2>/dev/null || echo missing) bytes"
# Doctor again once both hosts are in, if the README's doctor line comes before the second host.
if [ "$README_OK" = 1 ] && [[ "$(tail -1 "$NC_OUT/readme-commands.txt")" != *" doctor "* ]]; then
  nc_person "node dist/opencomms.js doctor --project $NC_PROJECT (again, after the second host)" 120 "$NC_CLONE" \
    node dist/opencomms.js doctor --project "$NC_PROJECT" >/dev/null
  DOCTOR_OUT="$(cat "$NC_LAST_LOG")"
  printf '%s\n' "$DOCTOR_OUT" | grep -E '^(FAIL|WARN)|No problems|Problems found' | cut -c1-240 | sed 's/^/    doctor: /'
fi
PERSON_TOTAL_MS=$PERSON_MS
if printf '%s' "$DOCTOR_OUT" | grep -q 'No problems'; then
  nc_verdict newcomer-doctor pass "doctor after both installs: $(printf '%s\n' "$DOCTOR_OUT" | grep 'No problems' | head -1)"
else
  nc_verdict newcomer-doctor fail "doctor said: $(printf '%s\n' "$DOCTOR_OUT" | grep -E '^(FAIL|WARN)|Problems' | tr '\n' ' ' | head -c 600)"
fi
if [ "$PERSON_TOTAL_MS" -le 180000 ]; then
  nc_verdict newcomer-person-time pass "the person's commands (clone, npm ci, README commands) took $(secs "$PERSON_TOTAL_MS") s in all (target 180 s)"
else
  nc_verdict newcomer-person-time fail "the person's commands took $(secs "$PERSON_TOTAL_MS") s in all, over the 180 s target"
fi
if [ "$README_OK" != 1 ]; then
  kill "$NC_STUB_PID" 2>/dev/null
  return 0
fi

# The sessions: real hosts, only what they need in the environment.
NC_CLAUDE_ENV=("${NC_BASE_ENV[@]}" "ANTHROPIC_BASE_URL=http://127.0.0.1:$NC_PORT" "ANTHROPIC_API_KEY=sk-offline-stub"
  "DISABLE_AUTOUPDATER=1" "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
NC_CODEX_ENV=("${NC_BASE_ENV[@]}" "STUB_API_KEY=sk-offline-stub")
nc_turn() { # name, api, env array name, texts to --find (one a line, or ''), host command...
  local name=$1 api=$2 envname="$3[@]" find=$4 text
  shift 4
  local finds=()
  while IFS= read -r text; do [ -n "$text" ] && finds+=(--find "$text"); done <<<"$find"
  (cd "$NC_PROJECT" && "${!envname}" node "$ROOT/scripts/claude-turn.mjs" --name "$name" --out "$NC_OUT" --api "$api" \
    --stub-log "$NC_STUB_LOG" --timeout 180 "${finds[@]}" -- "$@") | sed 's/^/  /'
  nc_json "$NC_OUT/$name.json" 's.tool_results.map((t) => "    " + t.name.replace(/^mcp__.*?__/, "") + " -> " + t.text.replace(/\s+/g, " ").slice(0, 220)).join("\n")'
  echo
}
nc_session() { nc_json "$NC_OUT/$1.json" 's.session_id'; }
nc_ok() { [[ "$1" == *'"ok":true'* ]]; }

REQ_MARK="REQ-$(node -e 'process.stdout.write(require("crypto").randomBytes(4).toString("hex"))')"
RESP_MARK="RESP-$(node -e 'process.stdout.write(require("crypto").randomBytes(4).toString("hex"))')"
nc_script() { # the stub's steps; $1: the request id the reviewer answers (known after turn 3)
  cat >"$NC_STUB_SCRIPT" <<EOF
{
  "w1": [{"tool": "opencomms_create", "input": {"channel": "$NC_CHANNEL", "role": "writer", "role_prompt": "You write the code and ask for reviews."}},
         {"text": "Channel $NC_CHANNEL created; I am its writer."}],
  "r1": [{"tool": "opencomms_join", "input": {"channel": "$NC_CHANNEL", "role": "reviewer", "role_prompt": "You review the writer's changes."}},
         {"text": "Joined $NC_CHANNEL as reviewer."}],
  "w2": [{"tool": "opencomms_send", "input": {"channel": "$NC_CHANNEL", "to": "reviewer", "type": "review_request", "content": "$REQ_MARK: please review src/lock.ts."}},
         {"text": "Review requested."}],
  "r2": [{"tool": "opencomms_pull", "input": {"channel": "$NC_CHANNEL"}},
         {"tool": "opencomms_send", "input": {"channel": "$NC_CHANNEL", "to": "writer", "type": "review_response", "reply_to": "${1:-unknown}", "content": "$RESP_MARK: src/lock.ts looks right to me."}},
         {"text": "Review sent."}],
  "w3": [{"tool": "opencomms_pull", "input": {}},
         {"tool": "opencomms_history", "input": {"channel": "$NC_CHANNEL"}},
         {"text": "Got the review."}]
}
EOF
}
nc_script

section "newcomer: 1. Claude Code creates the channel (claude -p, no extra flag)"
nc_turn w1 anthropic NC_CLAUDE_ENV '' claude -p "[stub:w1] Create the OpenComms channel \`$NC_CHANNEL\` as \`writer\`." --output-format stream-json --verbose
CLAUDE_SID="$(nc_session w1)"
T="$(nc_result w1 opencomms_create)"
nc_ok "$T" && nc_verdict newcomer-claude-create pass "claude session $CLAUDE_SID: opencomms_create answered $(nc_short "$T" 160)" \
  || nc_verdict newcomer-claude-create fail "opencomms_create: $(nc_short "${T:-no result}") (stderr: $(nc_short "$(tail -c 300 "$NC_OUT/w1.stderr")"))"

section "newcomer: 2. Codex joins as reviewer (codex exec)"
nc_turn r1 responses NC_CODEX_ENV '' codex exec --json "[stub:r1] Join the OpenComms channel \`$NC_CHANNEL\` as \`reviewer\`."
CODEX_SID="$(nc_session r1)"
T="$(nc_result r1 opencomms_join)"
nc_ok "$T" && nc_verdict newcomer-codex-join pass "codex thread $CODEX_SID: opencomms_join answered $(nc_short "$T" 160)" \
  || nc_verdict newcomer-codex-join fail "opencomms_join: $(nc_short "${T:-no result}") (stderr: $(nc_short "$(grep -v '^WARNING\|^Reading' "$NC_OUT/r1.stderr" | tail -c 300)"))"

section "newcomer: 3. Claude Code asks the reviewer for a review (claude -p --resume)"
nc_turn w2 anthropic NC_CLAUDE_ENV '' claude -p --resume "$CLAUDE_SID" "[stub:w2] Ask the reviewer to review src/lock.ts." --output-format stream-json --verbose
T="$(nc_result w2 opencomms_send)"
REQ_ID="$(printf '%s' "$T" | sed -n 's/.*"message_ids":\["\([^"]*\)".*/\1/p' | head -1)"
nc_ok "$T" && [ -n "$REQ_ID" ] && nc_verdict newcomer-claude-request pass "review_request $REQ_ID sent to reviewer: $(nc_short "$T" 200)" \
  || nc_verdict newcomer-claude-request fail "opencomms_send: $(nc_short "${T:-no result}") (stderr: $(nc_short "$(tail -c 300 "$NC_OUT/w2.stderr")"))"
nc_script "$REQ_ID"

section "newcomer: 4. Codex pulls and answers with reply_to (codex exec resume)"
nc_turn r2 responses NC_CODEX_ENV "$REQ_MARK" codex exec resume "$CODEX_SID" --json "[stub:r2] Pull your OpenComms mail and answer the review request."
SHOWN="$(nc_json "$NC_OUT/r2.json" "s.found['$REQ_MARK']")"
T="$(nc_result r2 opencomms_send)"
RESP_ID="$(printf '%s' "$T" | sed -n 's/.*"message_ids":\["\([^"]*\)".*/\1/p' | head -1)"
[ -n "$SHOWN" ] && [ "$(nc_session r2)" = "$CODEX_SID" ] \
  && nc_verdict newcomer-codex-receives pass "the same thread $CODEX_SID was shown the request: $SHOWN" \
  || nc_verdict newcomer-codex-receives fail "request text shown: ${SHOWN:-no}; thread $(nc_session r2) (was $CODEX_SID); pull: $(nc_short "$(nc_result r2 opencomms_pull)")"
nc_ok "$T" && [ -n "$RESP_ID" ] && nc_verdict newcomer-codex-answer pass "review_response $RESP_ID with reply_to $REQ_ID: $(nc_short "$T" 200)" \
  || nc_verdict newcomer-codex-answer fail "opencomms_send: $(nc_short "${T:-no result}") (stderr: $(nc_short "$(grep -v '^WARNING\|^Reading' "$NC_OUT/r2.stderr" | tail -c 300)"))"

section "newcomer: 5. Claude Code receives the answer (claude -p --resume)"
nc_turn w3 anthropic NC_CLAUDE_ENV "$RESP_MARK" claude -p --resume "$CLAUDE_SID" "[stub:w3] Did the review come back?" --output-format stream-json --verbose
SHOWN="$(nc_json "$NC_OUT/w3.json" "s.found['$RESP_MARK']")"
[ -n "$SHOWN" ] && nc_verdict newcomer-claude-receives pass "the writer was shown the answer: $SHOWN" \
  || nc_verdict newcomer-claude-receives fail "answer text shown: no; pull: $(nc_short "$(nc_result w3 opencomms_pull)")"
HIST="$(nc_result w3 opencomms_history)"
PATH_STEPS="$(printf '%s' "$HIST" | node -e 'let t = ""; process.stdin.on("data", (c) => { t += c; }).on("end", () => {
  try { const m = JSON.parse(t).data.messages.find((x) => x.message_id === process.argv[1]);
    process.stdout.write(m.path.map((p) => p.step + (p.via ? " via " + p.via : "") + (p.by ? " by " + p.by : "")).join(" > ")); } catch {} });' "$REQ_ID")"
[[ "$PATH_STEPS" == *"answered by $RESP_ID"* ]] && nc_verdict newcomer-answered pass "opencomms_history: request $REQ_ID path: $PATH_STEPS" \
  || nc_verdict newcomer-answered fail "request $REQ_ID path: ${PATH_STEPS:-none} (history: $(nc_short "${HIST:-no result}" 300))"

section "newcomer: the person's view (node dist/opencomms.js status)"
(cd "$NC_CLONE" && "${NC_PERSON_ENV[@]}" timeout 60 node dist/opencomms.js status --project "$NC_PROJECT") >"$NC_OUT/status.txt" 2>&1
sed 's/^/  /' "$NC_OUT/status.txt" | head -30
OPEN_REQ="$(nc_json "$NC_PROJECT/.opencomms/state.json" "Object.values(s.channels || {}).flatMap((c) => c.open_requests || []).map((r) => r.request_id).join(' ')")"
[ -n "$REQ_ID" ] && [[ " $OPEN_REQ " != *" $REQ_ID "* ]] && grep -q "$NC_CHANNEL" "$NC_OUT/status.txt" \
  && nc_verdict newcomer-status pass "status lists channel $NC_CHANNEL; no open review request (state.json open_requests: ${OPEN_REQ:-none})" \
  || nc_verdict newcomer-status fail "open review requests: ${OPEN_REQ:-none} (request $REQ_ID)"

# The README's "Talk to your agents": the person's say and read, as written
# (run where the README's other commands run: the clone), then the writer's
# next turn must be shown the person's words. watch runs until Ctrl-C: left out.
section "newcomer: 6. the person talks to the agents (the README's say and read)"
node -e 'const text = require("fs").readFileSync(process.argv[1], "utf8");
const from = text.indexOf("\n## Talk to your agents"); const to = text.indexOf("\n## ", from + 5);
const block = /```sh\n([\s\S]*?)```/.exec(text.slice(from, to === -1 ? undefined : to));
// One command a line, its words separated by \x1f: plain words and "double-quoted" text, a comment after # dropped.
for (const line of (block ? block[1] : "").split("\n")) {
  const words = [...line.replace(/\s+#.*$/, "").matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
  if (words.length > 0 && !words.includes("watch")) process.stdout.write(words.join("\x1f") + "\n");
}' "$NC_CLONE/README.md" >"$NC_OUT/readme-person.txt"
SAY_TEXT=
while IFS= read -r line; do
  IFS=$'\x1f' read -ra argv <<<"$line"
  cmd="${argv[*]}"
  cmd="${cmd//\/abs\/project/$NC_PROJECT}"
  for i in "${!argv[@]}"; do argv[$i]="${argv[$i]//\/abs\/project/$NC_PROJECT}"; done
  if nc_person "$cmd" 60 "$NC_CLONE" "${argv[@]}"; then
    sed 's/^/    | /' "$NC_LAST_LOG" | head -6 | cut -c1-240
    # The words said: say's one argument with spaces in it (the README quotes it).
    if [ "${argv[2]}" = say ]; then for a in "${argv[@]}"; do [[ "$a" == *" "* ]] && SAY_TEXT=$a; done; fi
    nc_verdict "newcomer-person-${argv[2]}" pass "\`$cmd\` exit 0 in $(secs "$NC_LAST_MS") s: $(nc_short "$(head -2 "$NC_LAST_LOG")" 200)"
  else
    nc_verdict "newcomer-person-${argv[2]}" fail "\`$cmd\`: $(nc_short "$(cat "$NC_LAST_LOG")" 400)"
  fi
done <"$NC_OUT/readme-person.txt"
if [ -n "$SAY_TEXT" ]; then
  node -e 'const [file] = process.argv.slice(1); const fs = require("fs"); const s = JSON.parse(fs.readFileSync(file, "utf8"));
s.w4 = [{ text: "I will add the test." }]; fs.writeFileSync(file, JSON.stringify(s));' "$NC_STUB_SCRIPT"
  # The words, and the frame's notice that marks them as the user's own, from their terminal (src/engine/framing.ts).
  PERSON_HEADER="the user's own words, typed at their terminal with opencomms say to channel \"$NC_CHANNEL\""
  nc_turn w4 anthropic NC_CLAUDE_ENV "$SAY_TEXT"$'\n'"$PERSON_HEADER" claude -p --resume "$CLAUDE_SID" "[stub:w4] Anything new?" --output-format stream-json --verbose
  shown_of() { node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); process.stdout.write(s.found[process.argv[2]] ?? "");' "$NC_OUT/w4.json" "$1" 2>/dev/null; }
  SHOWN="$(shown_of "$SAY_TEXT")"
  FRAMED="$(shown_of "$PERSON_HEADER")"
  [ -n "$SHOWN" ] && [ -n "$FRAMED" ] && [ "$(nc_session w4)" = "$CLAUDE_SID" ] \
    && nc_verdict newcomer-person-reaches-writer pass "the writer's resumed session was shown \"$SAY_TEXT\", framed as from a person ($(nc_json "$NC_OUT/w4.json" 's.shown_times[Object.keys(s.shown_times)[0]]') time(s) in its last request), in: $SHOWN" \
    || nc_verdict newcomer-person-reaches-writer fail "the writer's next turn: words shown ${SHOWN:-no}; framed as a person's: ${FRAMED:-no}; session $(nc_session w4)"
fi

kill "$NC_STUB_PID" 2>/dev/null
wait "$NC_STUB_PID" 2>/dev/null
TOTAL_MS=$(( $(now_ms) - TOTAL_STARTED ))
section "newcomer: times"
echo "npm ci: $(secs "${NPM_CI_MS:-0}") s; the person's set-up commands (clone + npm ci + README commands): $(secs "$PERSON_TOTAL_MS") s (target 180 s); the person's say and read: $(secs $((PERSON_MS - PERSON_TOTAL_MS))) s; all, with the model turns and checks: $(secs "$TOTAL_MS") s"

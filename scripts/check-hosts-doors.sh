# Sourced by scripts/check-hosts.sh (uses its ROOT, DIST, WORK, HOME, PATH,
# status, RESULT, RESULT_ORDER and section): an idle session of the real host
# CLI, interactive in tmux (not -p, not exec), woken by OpenComms through the
# host's own door (issue 27), offline against scripts/stub-model.mjs.
#
# Claude Code: a fresh project set up by a plain `opencomms install
# claude-code`; `claude` in tmux (ANTHROPIC_BASE_URL at the stub). A second
# member (scripts/mcp-send.mjs: an OpenComms server driven over stdio, named
# by a Codex-style `_meta.threadId`) opens channel door-claude; the session's
# first turn, a typed prompt, joins it as reviewer and ends. Once its turn
# record says idle, the second member sends. The session's own server must
# write its notice into the Claude Code inbox, and the stub must get a new
# request carrying that notice (timed from the send's reply; target 2 s).
# The woken turn pulls and asks opencomms_status (the door's own report);
# the message must show `rung` via inbox and exactly one `delivered`, and the
# model must hold its text once.
#
# Then ten mails to the same idle Claude Code session, one every few seconds
# (each once its last turn has ended and it is idle): each must wake it
# through its inbox at once. Claude Code drops an inbox body equal to the one
# it took within the last 30 s, so this holds only while every notice
# differs. A wake is a turn the stub model sees started by a notice; all ten
# mails must end delivered.
#
# Codex: the same with the `codex` TUI in tmux (a model provider at the stub,
# trust written by `install codex --apply` into a HOME of its own), a
# Claude-Code-like second member, and the door `codex queue --thread`. Codex
# hides MCP tools behind its tool_search, so the stub searches first and
# calls the tools by name and namespace, as the real model does.
# Every check prints one PASS or FAIL line.
# CHECK_HOSTS_DOORS="claude codex" (the default) picks the hosts; DOORS_BURST
# the number of mails of the Claude Code burst (10).

DOORS="$WORK/doors"
DOORS_STUB_SCRIPT="$DOORS/stub-script.json"
DOORS_STUB_LOG="$DOORS/stub-requests.jsonl"
DOORS_TMUX=(tmux -L "opencomms-doors-$$" -f /dev/null)
DOORS_PIDS=()
# Codex runs as a user of its own, with CODEX_HOME elsewhere than ~/.codex:
# Codex hands its MCP servers only a few variables, and our server's
# `codex queue` finds the TUI's threads only because install names
# CODEX_HOME in the server entry's env_vars.
DOORS_CODEX_USER="$WORK/doors-codex-user"
DOORS_CODEX_HOME="$WORK/doors-codex-home"
mkdir -p "$DOORS"
: >"$DOORS_STUB_LOG"

doors_verdict() { # name, pass|fail, text
  local name=$1 outcome=$2 text=$3
  RESULT_ORDER+=("$name")
  if [ "$outcome" = pass ]; then RESULT[$name]="PASS"; printf 'PASS %s: %s\n' "$name" "$text"
  else RESULT[$name]="FAIL"; printf 'FAIL %s: %s\n' "$name" "$text"; status=1; fi
}

# Cleanup: our tmux server, our background processes, and the app-server daemon
# the Codex TUI starts (it outlives the TUI; stopped through its own command,
# then by the pids it recorded).
doors_cleanup() {
  "${DOORS_TMUX[@]}" kill-server 2>/dev/null
  local pid file
  if [ -d "$DOORS_CODEX_HOME/app-server-daemon" ]; then
    env -i "PATH=$PATH" "HOME=$DOORS_CODEX_USER" "CODEX_HOME=$DOORS_CODEX_HOME" timeout 20 codex app-server daemon stop >/dev/null 2>&1
    for file in "$DOORS_CODEX_HOME/app-server-daemon/daemon.pid" "$DOORS_CODEX_HOME/app-server-daemon/daemon-updater.pid"; do
      pid="$(sed -n 's/.*"pid":\([0-9][0-9]*\).*/\1/p' "$file" 2>/dev/null | head -1)"
      [ -n "$pid" ] && kill "$pid" 2>/dev/null
    done
  fi
  for pid in "${DOORS_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  DOORS_PIDS=()
}
# Keep whatever EXIT trap the caller set (it removes $WORK), after ours.
eval "doors_set_prev() { DOORS_PREV_TRAP=\${3:-}; }; doors_set_prev $(trap -p EXIT)"
trap 'doors_cleanup; eval "$DOORS_PREV_TRAP"' EXIT

# Reads what the checks need from the stub's request log and from mcp-send's output.
cat >"$DOORS/read.cjs" <<'EOF'
const fs = require('fs');
const [what, ...args] = process.argv.slice(2);
const lines = (file) => { try { return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)); } catch { return []; } };
const mainLoop = (r) => (r.api === 'anthropic' || r.api === 'responses') && Array.isArray(r.body.tools) && r.body.tools.length > 0;
// A request's conversation as [{ role, text }] (text: the JSON of the item, so tool results count too).
const items = (r) => (r.api === 'anthropic' ? r.body.messages : r.body.input) || [];
const userTexts = (r) => items(r).filter((m) => m.role === 'user' && (r.api === 'anthropic' || m.type === 'message'))
  .map((m) => (typeof m.content === 'string' ? m.content : (m.content || []).map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n')));
const out = (v) => process.stdout.write(v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
if (what === 'step') { // FILE INDEX: mcp-send's record of step INDEX
  out(lines(args[0]).find((l) => l.step === Number(args[1])));
} else if (what === 'wake') { // LOG SINCE TEXT: the first main-loop request at or after SINCE with a user message holding TEXT
  const r = lines(args[0]).find((x) => mainLoop(x) && x.at >= Number(args[1]) && userTexts(x).some((t) => t.includes(args[2])));
  if (r) out({ seq: r.seq, at: r.at, shown: userTexts(r).find((t) => t.includes(args[2])) });
} else if (what === 'woke') { // LOG SINCE TAG: the first request of a turn of TAG (its step 0) at or after SINCE
  const r = lines(args[0]).find((x) => mainLoop(x) && x.at >= Number(args[1]) && typeof x.reply?.why === 'string' && x.reply.why.startsWith(`tag ${args[2]} step 0`));
  if (r) out({ seq: r.seq, at: r.at, shown: userTexts(r).filter((t) => t.includes('OpenComms message')).pop() });
} else if (what === 'replied') { // LOG WHY: whether the stub gave a reply whose reason starts with WHY
  out(lines(args[0]).some((x) => typeof x.reply?.why === 'string' && x.reply.why.startsWith(args[1])) ? 'yes' : '');
} else if (what === 'shown') { // LOG TAG MARKER: in the last main-loop request of TAG's turn, how many items hold MARKER
  const reqs = lines(args[0]).filter((x) => mainLoop(x) && typeof x.reply?.why === 'string' && x.reply.why.startsWith(`tag ${args[1]} `));
  const last = reqs[reqs.length - 1];
  if (last) out(String(items(last).filter((m) => JSON.stringify(m).includes(args[2])).length));
} else if (what === 'door') { // LOG TAG: the door report of the last opencomms_status result the model was shown in TAG's turn
  const reqs = lines(args[0]).filter((x) => mainLoop(x) && typeof x.reply?.why === 'string' && x.reply.why.startsWith(`tag ${args[1]} `));
  let found;
  for (const r of reqs) for (const m of items(r)) {
    const text = JSON.stringify(m);
    const at = text.indexOf('\\"door\\":{');
    if (at === -1) continue;
    const raw = JSON.parse(`"${text.slice(at, text.indexOf('}', at) + 1)}"`);
    try { found = JSON.parse(`{${raw}}`).door; } catch {}
  }
  out(found);
} else if (what === 'path') { // SENDOUT INDEX MESSAGE_ID: the history path of MESSAGE_ID from mcp-send's step INDEX
  const rec = lines(args[0]).find((l) => l.step === Number(args[1]));
  let msg;
  try { msg = JSON.parse(rec.text).data.messages.find((m) => m.message_id === args[2]); } catch {}
  out(msg ? { status: msg.delivery_status, path: msg.path } : undefined);
} else if (what === 'idle') { // TURNS_DIR SINCE: a turn record saying idle (a Stop) written at or after SINCE
  let found = '';
  try {
    for (const f of fs.readdirSync(args[0]).filter((n) => n.endsWith('.json'))) {
      const t = JSON.parse(fs.readFileSync(`${args[0]}/${f}`, 'utf8'));
      if (t.phase === 'idle' && t.event === 'Stop' && t.at >= Number(args[1])) found = `${f}: ${JSON.stringify(t)}`;
    }
  } catch {}
  out(found);
}
EOF
doors_read() { node "$DOORS/read.cjs" "$@" 2>/dev/null; }
doors_now() { node -e 'process.stdout.write(String(Date.now()))'; }
doors_rand() { node -e 'process.stdout.write(require("crypto").randomBytes(4).toString("hex"))'; }
doors_uuid() { node -e 'process.stdout.write(require("crypto").randomUUID())'; }
doors_pane() { "${DOORS_TMUX[@]}" capture-pane -p -t "$1" 2>/dev/null | sed -e 's/[[:space:]]*$//' | grep -v '^$'; }
doors_show_pane() { echo "--- the $1 terminal now:"; doors_pane "$1" | tail -"${2:-25}" | sed 's/^/  | /'; }
# doors_until SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds or the deadline passes.
doors_until() {
  local deadline=$((SECONDS + $1))
  shift
  while [ "$SECONDS" -lt "$deadline" ]; do
    "$@" && return 0
    sleep 0.1
  done
  "$@"
}
# Types TEXT into the session's terminal, waits until it shows, then presses Enter.
doors_type() { # session, text
  "${DOORS_TMUX[@]}" send-keys -t "$1" -l "$2"
  doors_until 10 bash -c '"$@" | grep -qF -- "$0"' "${2:0:30}" "${DOORS_TMUX[@]}" capture-pane -p -t "$1"
  "${DOORS_TMUX[@]}" send-keys -t "$1" Enter
}
# The pid of a process under ROOT_PID (at any depth) whose command line holds TEXT.
doors_child() { # root pid, text
  ps -eo pid=,ppid=,args= 2>/dev/null | awk -v root="$1" -v text="$2" '
    { pid[NR] = $1; parent[NR] = $2; line[NR] = $0 }
    END {
      inside[root] = 1
      do { grew = 0; for (i = 1; i <= NR; i++) if (inside[parent[i]] && !inside[pid[i]]) { inside[pid[i]] = 1; grew = 1 } } while (grew)
      for (i = 1; i <= NR; i++) if (inside[pid[i]] && index(line[i], text)) { print pid[i]; exit }
    }'
}
doors_pane_pid() { "${DOORS_TMUX[@]}" list-panes -t "$1" -F '#{pane_pid}' 2>/dev/null | head -1; }
doors_sender_step() { [ -n "$(doors_read step "$1" "$2")" ]; }
doors_sender_done() { grep -q '"done":true\|"error"' "$1" 2>/dev/null; }

if ! command -v tmux >/dev/null; then
  doors_verdict doors-setup fail "tmux is not installed: the doors check drives the interactive hosts in tmux"
  return 0
fi

section "doors: stub model API on 127.0.0.1"
node "$ROOT/scripts/stub-model.mjs" --script "$DOORS_STUB_SCRIPT" --log "$DOORS_STUB_LOG" >"$DOORS/stub.out" 2>"$DOORS/stub.err" &
DOORS_PIDS+=($!)
DOORS_PORT=
doors_port() { DOORS_PORT="$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$DOORS/stub.out")"; [ -n "$DOORS_PORT" ]; }
if ! doors_until 10 doors_port; then
  doors_verdict doors-setup fail "the stub model did not start: $(head -c 300 "$DOORS/stub.err")"
  doors_cleanup
  return 0
fi
echo "stub model on 127.0.0.1:$DOORS_PORT; requests logged to $DOORS_STUB_LOG"

# The stub's steps. A door's notice names no tag, so "_when" ties each
# channel's notice to the steps of the woken turn: pull, then status (the
# door's own report), then a short answer. The last entry catches a
# door-claude notice for several messages too ("2 OpenComms messages wait").
node -e 'const fs = require("fs"); fs.writeFileSync(process.argv[1], JSON.stringify({
  cjoin: [{ tool: "opencomms_join", input: { channel: "door-claude", role: "reviewer", role_prompt: "You review what the writer sends." } },
          { text: "Joined door-claude; waiting." }],
  cwake: [{ tool: "opencomms_pull", input: {} }, { tool: "opencomms_status", input: {} }, { text: "Read the mail." }],
  xjoin: [{ tool: "opencomms_join", input: { channel: "door-codex", role: "reviewer", role_prompt: "You review what the writer sends." } },
          { text: "Joined door-codex; waiting." }],
  xwake: [{ tool: "opencomms_pull", input: {} }, { tool: "opencomms_status", input: {} }, { text: "Read the mail." }],
  _when: [{ text: "OpenComms message waits for you: from writer on channel door-claude", tag: "cwake" },
          { text: "OpenComms message waits for you: from writer on channel door-codex", tag: "xwake" },
          { text: "from writer on channel door-claude", tag: "cwake" }],
}, null, 1));' "$DOORS_STUB_SCRIPT"

BASE_DOORS_ENV=(env -i "PATH=$PATH" "HOME=$HOME" "TMPDIR=${TMPDIR:-/tmp}" "LANG=C.UTF-8" "TERM=xterm-256color"
  "XDG_CONFIG_HOME=$XDG_CONFIG_HOME" "XDG_DATA_HOME=$XDG_DATA_HOME" "XDG_CACHE_HOME=$XDG_CACHE_HOME" "XDG_STATE_HOME=$XDG_STATE_HOME")

# One woken session: the shared steps of both parts, after its host is set up.
#   doors_run PREFIX HOST_LABEL SESSION PROJECT CHANNEL JOIN_TAG WAKE_TAG DOOR SENDER_ENV_NAME SENDER_ARGS...
# The host must already run in tmux session SESSION, its prompt ready.
doors_last_step() { node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[process.argv[2]].length - 1))' "$DOORS_STUB_SCRIPT" "$1"; }
doors_run() {
  local prefix=$1 label=$2 session=$3 project=$4 channel=$5 jtag=$6 wtag=$7 door=$8 senv="${9}[@]"
  shift 9
  local jlast wlast
  jlast="$(doors_last_step "$jtag")"
  wlast="$(doors_last_step "$wtag")"
  local out="$DOORS/$prefix-sender.jsonl" steps="$DOORS/$prefix-sender-steps.json" ping
  ping="DOOR-PING-$prefix-$(doors_rand)"
  local go_send="$DOORS/$prefix-go-send" go_end="$DOORS/$prefix-go-end"
  : >"$out"
  node -e 'const [file, channel, ping, goSend, goEnd] = process.argv.slice(1); require("fs").writeFileSync(file, JSON.stringify([
  { tool: "opencomms_create", arguments: { channel, role: "writer", role_prompt: "You write and ask for reviews." } },
  { wait_file: goSend, timeout_s: 600 },
  { tool: "opencomms_send", arguments: { channel, to: "reviewer", content: ping + ": please review the change." } },
  { wait_file: goEnd, timeout_s: 600 },
  { tool: "opencomms_history", arguments: { channel } },
]));' "$steps" "$channel" "$ping" "$go_send" "$go_end"
  # Started straight from here (env execs node), so the pid kept for cleanup is the sender's own.
  "${!senv}" node "$ROOT/scripts/mcp-send.mjs" --dist "$DIST" --project "$project" --out "$out" --steps "$steps" "$@" \
    2>"$DOORS/$prefix-sender.err" &
  DOORS_PIDS+=($!)
  if ! doors_until 30 doors_sender_step "$out" 0; then
    doors_verdict "$prefix-setup" fail "the second member did not open $channel: $(head -c 300 "$DOORS/$prefix-sender.err")"
    return 1
  fi
  echo "second member ($*): $(doors_read step "$out" 0 | node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); process.stdout.write(JSON.parse(r.text).message)')"

  # The first turn, typed: join the channel; then the session is idle.
  local typed
  typed="$(doors_now)"
  doors_type "$session" "[stub:$jtag] Join the OpenComms channel $channel as reviewer."
  local idle_record
  if doors_until 90 bash -c '[ -n "$(node "$0" replied "$1" "tag $2 step $3")" ] && grep -q "\"role\":\"reviewer\"" "$4/.opencomms/state.json"' \
      "$DOORS/read.cjs" "$DOORS_STUB_LOG" "$jtag" "$jlast" "$project"; then
    echo "$label: first turn answered; the session joined $channel as reviewer"
  else
    doors_verdict "$prefix-join" fail "$label's first turn did not join $channel within 90 s (stub replies for $jtag: $(grep -c "tag $jtag" "$DOORS_STUB_LOG"))"
    doors_show_pane "$session"
    return 1
  fi
  if doors_until 30 bash -c '[ -n "$(node "$0" idle "$1" "$2")" ]' "$DOORS/read.cjs" "$project/.opencomms/turns" "$typed"; then
    idle_record="$(doors_read idle "$project/.opencomms/turns" "$typed")"
    echo "$label: turn record says idle: $idle_record"
  else
    echo "$label: NOTE no turn record says idle after the first turn (files: $(ls "$project/.opencomms/turns" 2>/dev/null | tr '\n' ' ')); with no record the door rings anyway"
  fi

  # The send, and the wake it must cause.
  touch "$go_send"
  if ! doors_until 30 doors_sender_step "$out" 2; then
    doors_verdict "$prefix-wake" fail "the second member's send did not come back: $(head -c 300 "$DOORS/$prefix-sender.err")"
    return 1
  fi
  local send sent_at reply_at message_id
  send="$(doors_read step "$out" 2)"
  sent_at="$(printf '%s' "$send" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).sent_at))')"
  reply_at="$(printf '%s' "$send" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).reply_at))')"
  message_id="$(printf '%s' "$send" | sed -n 's/.*\(ocm_[0-9a-f]\{32\}\).*/\1/p' | head -1)"
  echo "sent $message_id ($ping); the reply says: $(printf '%s' "$send" | node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); process.stdout.write((JSON.parse(r.text).message || "").split("\n").slice(1).join(" "))')"
  local notice="OpenComms message waits for you: from writer on channel $channel"
  local wake=
  doors_wake() { wake="$(doors_read wake "$DOORS_STUB_LOG" "$sent_at" "$notice")"; [ -n "$wake" ]; }
  if doors_until 30 doors_wake; then
    local wake_at delay
    wake_at="$(printf '%s' "$wake" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).at))')"
    delay=$((wake_at - reply_at))
    local shown
    shown="$(printf '%s' "$wake" | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0, "utf8")).shown.replace(/\s+/g, " ").slice(0, 240))')"
    doors_verdict "$prefix-wake" pass "the idle session started a turn with the door's notice; the model got it $delay ms after the send's reply (stub request $(printf '%s' "$wake" | sed -n 's/.*"seq":\([0-9]*\).*/\1/p')): \"$shown\""
    if [ "$delay" -le 2000 ]; then
      doors_verdict "$prefix-wake-time" pass "send -> model request with the notice: $delay ms (target 2000 ms)"
    else
      doors_verdict "$prefix-wake-time" fail "send -> model request with the notice: $delay ms, over the 2000 ms target"
    fi
  else
    doors_verdict "$prefix-wake" fail "no model request carried the notice (\"$notice\") within 30 s of the send; main-loop requests since: $(node -e 'const [f, s] = process.argv.slice(1); process.stdout.write(String(require("fs").readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.at >= Number(s) && r.api).length))' "$DOORS_STUB_LOG" "$sent_at")"
    doors_show_pane "$session"
    touch "$go_end"
    doors_until 30 doors_sender_done "$out"
    local path
    path="$(doors_read path "$out" 4 "$message_id")"
    echo "the message's path: ${path:-unknown}"
    echo "the recipient's problems (status): $(node "$DIST" status --project "$project" --json 2>/dev/null | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); process.stdout.write(JSON.stringify(j.data.errors).slice(0, 600))')"
    return 1
  fi

  # The woken turn runs to its end (pull, status, answer); then the sender looks at the history.
  if ! doors_until 60 bash -c '[ -n "$(node "$0" replied "$1" "tag $2 step $3")" ]' "$DOORS/read.cjs" "$DOORS_STUB_LOG" "$wtag" "$wlast"; then
    echo "$label: NOTE the woken turn did not reach its last step within 60 s"
    doors_show_pane "$session"
  fi
  touch "$go_end"
  doors_until 30 doors_sender_done "$out"
  local path
  path="$(doors_read path "$out" 4 "$message_id")"
  local verdict
  verdict="$(printf '%s' "$path" | node -e 'const door = process.argv[1]; let p; try { p = JSON.parse(require("fs").readFileSync(0, "utf8")); } catch { process.stdout.write("fail no history entry"); process.exit(0); }
const steps = p.path.map((s) => s.step + (s.via ? " via " + s.via : "") + " +" + (s.at - p.path[0].at) + " ms");
const delivered = p.path.filter((s) => s.step === "delivered");
const rung = p.path.filter((s) => s.step === "rung" && s.via === door);
const ok = p.status === "delivered" && delivered.length === 1 && rung.length >= 1 && rung[0].at <= delivered[0].at;
process.stdout.write((ok ? "pass " : "fail ") + "status " + p.status + "; path: " + steps.join(", "));' "$door")"
  doors_verdict "$prefix-path" "${verdict%% *}" "${verdict#* }"
  local times door_report
  times="$(doors_read shown "$DOORS_STUB_LOG" "$wtag" "$ping")"
  door_report="$(doors_read door "$DOORS_STUB_LOG" "$wtag")"
  if [ "$times" = 1 ]; then
    doors_verdict "$prefix-once" pass "the model holds the mail once at the end of the woken turn (items naming $ping in its last request: $times)"
  else
    doors_verdict "$prefix-once" fail "items naming $ping in the woken turn's last request: ${times:-none}"
  fi
  if [ -n "$door_report" ] && printf '%s' "$door_report" | grep -q '"last_problem":null' && printf '%s' "$door_report" | grep -q '"confirmed_at":[0-9]'; then
    doors_verdict "$prefix-door-report" pass "the recipient's opencomms_status: door $door_report"
  else
    doors_verdict "$prefix-door-report" fail "the recipient's opencomms_status door: ${door_report:-not seen}"
  fi
  echo "project status: $(node "$DIST" status --project "$project" --json 2>/dev/null | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); process.stdout.write("pending " + j.data.pending_messages + ", errors " + JSON.stringify(j.data.errors).slice(0, 400))')"
}

# Ten mails, a few seconds apart, to the idle session; each must wake it.
#   doors_burst PREFIX SESSION PROJECT CHANNEL WAKE_TAG SENDER_ENV_NAME SENDER_ARGS...
# The sender is the member that opened CHANNEL (the same thread), so each
# notice names the same role on the same channel: the case where notices
# used to repeat word for word.
doors_burst() {
  local prefix=$1 session=$2 project=$3 channel=$4 wtag=$5 senv="${6}[@]"
  shift 6
  local n=${DOORS_BURST:-10} out="$DOORS/$prefix-burst.jsonl" steps="$DOORS/$prefix-burst-steps.json" mark
  mark="BURST-$(doors_rand)"
  : >"$out"
  node -e 'const [file, channel, mark, n, dir] = process.argv.slice(1); const steps = [];
for (let i = 1; i <= Number(n); i++) {
  steps.push({ wait_file: `${dir}/burst-go-${i}`, timeout_s: 600 });
  steps.push({ tool: "opencomms_send", arguments: { channel, to: "reviewer", content: `${mark}-${i}: please review change ${i}.` } });
}
require("fs").writeFileSync(file, JSON.stringify(steps));' "$steps" "$channel" "$mark" "$n" "$DOORS/$prefix"
  mkdir -p "$DOORS/$prefix"
  "${!senv}" node "$ROOT/scripts/mcp-send.mjs" --dist "$DIST" --project "$project" --out "$out" --steps "$steps" "$@" \
    2>"$DOORS/$prefix-burst.err" &
  DOORS_PIDS+=($!)
  local i since prompt=0 late=0 missed=0 delays=() misses=() wake reply_at wake_at delay
  since="$(doors_now)"
  # The session is idle before the first: the woken turn of the single wake has ended.
  doors_until 60 bash -c '[ -n "$(node "$0" replied "$1" "tag $2 step 2")" ]' "$DOORS/read.cjs" "$DOORS_STUB_LOG" "$wtag" >/dev/null
  for ((i = 1; i <= n; i++)); do
    # Idle: a Stop written since the last wake (or since the burst began), then a few seconds' pause.
    doors_until 60 bash -c '[ -n "$(node "$0" idle "$1" "$2")" ]' "$DOORS/read.cjs" "$project/.opencomms/turns" "$since" >/dev/null
    sleep 3
    touch "$DOORS/$prefix/burst-go-$i"
    if ! doors_until 30 doors_sender_step "$out" $((2 * i - 1)); then
      doors_verdict "$prefix-burst" fail "send $i of $n did not come back: $(head -c 300 "$DOORS/$prefix-burst.err")"
      return 1
    fi
    reply_at="$(doors_read step "$out" $((2 * i - 1)) | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).reply_at))')"
    wake=
    doors_burst_woke() { wake="$(doors_read woke "$DOORS_STUB_LOG" "$reply_at" "$wtag")"; [ -n "$wake" ]; }
    # Long enough for one ring again (30 s after a ring that woke nobody).
    if doors_until 45 doors_burst_woke; then
      wake_at="$(printf '%s' "$wake" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).at))')"
      delay=$((wake_at - reply_at))
      delays+=("$delay")
      if [ "$delay" -le 10000 ]; then prompt=$((prompt + 1)); else late=$((late + 1)); fi
      echo "mail $i: woke the session $delay ms after the send's reply: \"$(printf '%s' "$wake" | node -e 'process.stdout.write((JSON.parse(require("fs").readFileSync(0, "utf8")).shown || "").replace(/\s+/g, " ").slice(0, 200))')\""
      since=$wake_at
    else
      missed=$((missed + 1))
      misses+=("$i")
      echo "mail $i: no turn started within 45 s of the send"
    fi
  done
  # Every mail delivered once: nothing pending for the reviewer at the end (a dropped one waits for the next wake's pull).
  local pending
  doors_pending() { pending="$(node "$DIST" status --project "$project" --json 2>/dev/null | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); process.stdout.write(String(j.data.pending_messages))')"; [ "$pending" = 0 ]; }
  doors_until 60 doors_pending
  local text="$prompt of $n mails woke the idle session at once (within 10 s), $late later (a ring again), $missed not within 45 s${misses[*]:+ (mails ${misses[*]})}; send -> wake ms: ${delays[*]:-none}; pending at the end: ${pending:-unknown}"
  if [ "$prompt" = "$n" ] && [ "$pending" = 0 ]; then doors_verdict "$prefix-burst" pass "$text"
  else doors_verdict "$prefix-burst" fail "$text"; doors_show_pane "$session"; fi
  echo "the door's own report: $(node "$DIST" status --project "$project" 2>/dev/null | grep -iE 'rang|error' | head -5 | tr '\n' ' ')"
}

# ---- Starting a host in tmux (shared with scripts/check-hosts-board.sh) -----
# doors_claude_up SESSION PROJECT: a fresh project set up by a plain `opencomms
# install claude-code`, and interactive claude in tmux session SESSION, its
# prompt ready and our server running under it. Fails (after a FAIL line) if not.
DC_KEY=sk-ant-offline-stub-doors
DC_ENV=("${BASE_DOORS_ENV[@]}" "ANTHROPIC_BASE_URL=http://127.0.0.1:$DOORS_PORT" "ANTHROPIC_API_KEY=$DC_KEY"
  "DISABLE_AUTOUPDATER=1" "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
doors_claude_project() { # project: installed, trusted, approved (what a person answers once on a new machine)
  local project=$1 name
  name="$(basename "$project")"
  mkdir -p "$project" && git -C "$project" init -q 2>/dev/null
  node "$DIST" install claude-code --project "$project" >"$DOORS/install-$name.out" 2>&1 \
    && echo "opencomms install claude-code: $(grep -c '^wrote' "$DOORS/install-$name.out") file(s) written ($(grep -o 'settings.local.json ([^)]*' "$DOORS/install-$name.out" | head -1))" \
    || { echo "opencomms install claude-code failed: $(tail -3 "$DOORS/install-$name.out")"; status=1; }
  # Onboarding done, this API key approved (Claude Code keeps the key's last
  # 20 characters), the folder trusted, the project's .mcp.json server approved.
  node -e 'const [file, project, key] = process.argv.slice(1); const fs = require("fs");
let j = {}; try { j = JSON.parse(fs.readFileSync(file, "utf8")); } catch {}
j.hasCompletedOnboarding = true;
j.customApiKeyResponses = { approved: [...new Set([...(j.customApiKeyResponses?.approved || []), key.slice(-20)])], rejected: [] };
j.projects = j.projects || {}; j.projects[project] = { ...(j.projects[project] || {}), hasTrustDialogAccepted: true, enabledMcpjsonServers: ["opencomms"] };
fs.writeFileSync(file, JSON.stringify(j));' "$HOME/.claude.json" "$project" "$DC_KEY"
}
doors_claude_up() {
  local session=$1 project=$2
  doors_claude_project "$project"
  "${DOORS_TMUX[@]}" new-session -d -s "$session" -x 200 -y 50 -c "$project" "$(printf '%q ' "${DC_ENV[@]}" claude); sleep 600"
  doors_claude_ready() {
    local pane
    pane="$(doors_pane "$session")"
    if [[ "$pane" == *"Do you want to use this API key"* ]]; then "${DOORS_TMUX[@]}" send-keys -t "$session" Up Enter; return 1; fi
    if [[ "$pane" == *"Yes, I trust this folder"* || "$pane" == *"Yes, proceed"* ]]; then "${DOORS_TMUX[@]}" send-keys -t "$session" Enter; return 1; fi
    [[ "$pane" == *"❯"* ]] && [ -n "$(doors_child "$(doors_pane_pid "$session")" .opencomms/opencomms.js)" ]
  }
  if doors_until 60 doors_claude_ready; then
    echo "claude is up in tmux; its OpenComms server runs: $(ps -o pid=,args= -p "$(doors_child "$(doors_pane_pid "$session")" .opencomms/opencomms.js)")"
  else
    doors_verdict "$session-setup" fail "claude did not come up ready within 60 s (prompt, our server)"
    doors_show_pane "$session"
    return 1
  fi
}

# doors_codex_up SESSION PROJECT: the same for the `codex` TUI (a model
# provider at the stub, trust written by `install codex --apply` into a HOME
# of its own).
DX_ENV=("${BASE_DOORS_ENV[@]}" "HOME=$DOORS_CODEX_USER" "CODEX_HOME=$DOORS_CODEX_HOME" "STUB_API_KEY=sk-offline-stub")
doors_codex_up() {
  local session=$1 project=$2
  mkdir -p "$project" "$DOORS_CODEX_HOME" "$DOORS_CODEX_USER" && git -C "$project" init -q 2>/dev/null
  # A model Codex knows (so no picker), the stub as its provider, and the
  # model-migration notice marked as seen (else the TUI opens on it). Written
  # once: install --apply adds each project's trust to it.
  [ -f "$DOORS_CODEX_HOME/config.toml" ] || cat >"$DOORS_CODEX_HOME/config.toml" <<EOF
model_provider = "stub"
model = "gpt-5.5"

[model_providers.stub]
name = "stub"
base_url = "http://127.0.0.1:$DOORS_PORT/v1"
wire_api = "responses"
env_key = "STUB_API_KEY"

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"

[tui.model_availability_nux]
"gpt-6.1-sol" = 1
EOF
  HOME="$DOORS_CODEX_USER" CODEX_HOME="$DOORS_CODEX_HOME" node "$DIST" install codex --project "$project" --apply >"$DOORS/install-$session.out" 2>&1 \
    && echo "opencomms install codex --apply: $(grep '^wrote' "$DOORS/install-$session.out" | tr '\n' ';' | head -c 400)" \
    || { echo "opencomms install codex --apply failed: $(tail -3 "$DOORS/install-$session.out")"; status=1; }
  "${DOORS_TMUX[@]}" new-session -d -s "$session" -x 200 -y 50 -c "$project" "$(printf '%q ' "${DX_ENV[@]}" codex); sleep 600"
  doors_codex_ready() {
    local pane
    pane="$(doors_pane "$session")"
    if [[ "$pane" == *"Use existing model"* ]]; then "${DOORS_TMUX[@]}" send-keys -t "$session" 2; "${DOORS_TMUX[@]}" send-keys -t "$session" Enter; return 1; fi
    if [[ "$pane" == *"Do you trust"* ]]; then "${DOORS_TMUX[@]}" send-keys -t "$session" Enter; return 1; fi
    [[ "$pane" == *"Ask Codex to do anything"* ]] && pgrep -f -- "$project/.opencomms/opencomms.js --project $project --host codex" >/dev/null
  }
  if doors_until 60 doors_codex_ready; then
    echo "codex is up in tmux; its OpenComms server runs (pid $(pgrep -f -- "$project/.opencomms/opencomms.js --project $project --host codex" | head -1), under Codex's app-server daemon)"
  else
    doors_verdict "$session-setup" fail "codex did not come up ready within 60 s (prompt, our server)"
    doors_show_pane "$session"
    return 1
  fi
}

# The parts: CHECK_HOSTS_DOORS names them; by default the mail doors for
# CHECK_HOSTS_ONLY=doors, the board's (scripts/check-hosts-board.sh) for
# CHECK_HOSTS_ONLY=board, all of them for a whole run.
case "${ONLY:-}" in
  doors) DOORS_DEFAULT="claude codex" ;;
  board) DOORS_DEFAULT="claude-board codex-board pair claude-compact" ;;
  *) DOORS_DEFAULT="claude codex claude-board codex-board pair claude-compact" ;;
esac
DOORS_HOSTS=" ${CHECK_HOSTS_DOORS:-$DOORS_DEFAULT} "

# ---- Claude Code -----------------------------------------------------------
if [[ "$DOORS_HOSTS" == *" claude "* ]] && command -v claude >/dev/null; then
  section "doors: Claude Code $(claude --version 2>/dev/null | head -1), idle in tmux, woken through its inbox"
  DC_PROJECT="$WORK/doors-claude-project"
  if doors_claude_up claude "$DC_PROJECT"; then
    DC_SENDER_ENV=("${BASE_DOORS_ENV[@]}")
    DC_SENDER_THREAD="$(doors_uuid)"
    doors_run claude "Claude Code" claude "$DC_PROJECT" door-claude cjoin cwake inbox DC_SENDER_ENV \
      --host codex --thread "$DC_SENDER_THREAD" \
      && doors_burst claude claude "$DC_PROJECT" door-claude cwake DC_SENDER_ENV --host codex --thread "$DC_SENDER_THREAD"
  fi
  "${DOORS_TMUX[@]}" kill-session -t claude 2>/dev/null
fi

# ---- Codex -----------------------------------------------------------------
if [[ "$DOORS_HOSTS" == *" codex "* ]] && command -v codex >/dev/null; then
  section "doors: Codex $(codex --version 2>/dev/null | head -1) TUI, idle in tmux, woken through codex queue"
  DX_PROJECT="$WORK/doors-codex-project"
  if doors_codex_up codex "$DX_PROJECT"; then
    DX_SENDER_ENV=("${BASE_DOORS_ENV[@]}" "CLAUDE_CODE_SESSION_ID=$(doors_uuid)")
    doors_run codex Codex codex "$DX_PROJECT" door-codex xjoin xwake codex_queue DX_SENDER_ENV --host claude-code
  fi
  "${DOORS_TMUX[@]}" kill-session -t codex 2>/dev/null
fi

# ---- The board (issue 36) ----------------------------------------------------
# shellcheck source=scripts/check-hosts-board.sh
. "$ROOT/scripts/check-hosts-board.sh"

doors_cleanup

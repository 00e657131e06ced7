# Sourced by scripts/check-hosts-doors.sh (uses its stub, tmux server, helpers
# and DOORS_HOSTS): the task board (issue 36) with the real hosts, offline
# against scripts/stub-model.mjs.
#
# claude-board, codex-board: an interactive Claude Code (codex TUI) in tmux,
# set up by a plain install. Its first turn, typed, asks opencomms_status and
# then opencomms_task action next: nothing is ready, so its member waits for
# work, and the turn ends. Once the session is idle, the person runs
# `opencomms task add` from here. The session's own server must ring the
# host's door (Claude Code inbox, `codex queue`), the stub must get a new turn
# that starts with the board's notice, answer it with opencomms_task action
# next, and `opencomms task list --json` must then show t1 claimed by the
# member that waited. Timed: add -> notice at the model, add -> claim. Then,
# in the same session, a second task added while a turn runs (the stub holds
# its last reply): no door rings a busy session; its Stop hook must tell it,
# keep it going, and its `next` claims t2.
#
# pair: both in one project, both waiting: a person's first task add wakes
# only the one that waited longest (Claude Code, which asked first), and it
# claims t1; Codex gets no notice and still waits; the second add wakes Codex,
# which claims t2.
#
# claude-compact: headless `claude -p` (as check-hosts-turns.sh runs it). A
# turn claims t1; a resumed run is given the prompt /compact; a third run,
# resumed again, must show the model the SessionStart digest ("You hold 1
# task(s) on the board: t1"). The SessionStart sources Claude Code fired are
# logged by a hook of our own and reported; the digest must also reach the
# model after an interactive /compact (no resume in between), where only
# SessionStart source compact can carry it.
# Every check prints one PASS or FAIL line.

BOARD_NOTICE_MARK="a task is ready: call opencomms_task with action next (rung"
BOARD_DIGEST="You hold 1 task(s) on the board: t1"
TASK_READY_MARK="a task is ready: call opencomms_task with action next"

# The stub's board steps, added to the doors' script. Both the door's notice
# and the hooks' line hold TASK_READY_NOTICE, so either starts the woken steps.
node -e 'const fs = require("fs"); const file = process.argv[1]; const s = JSON.parse(fs.readFileSync(file, "utf8"));
Object.assign(s, {
  bwait: [{ tool: "opencomms_status", input: {} }, { tool: "opencomms_task", input: { action: "next" } }, { text: "Nothing is ready; waiting for work." }],
  bwake: [{ tool: "opencomms_task", input: { action: "next" } }, { text: "Took the ready task." }],
  cclaim: [{ tool: "opencomms_task", input: { action: "claim", id: "t1" } }, { text: "Claimed t1." }],
  cafter: [{ text: "Back after compaction." }],
});
s._when = [...s._when, { text: "a task is ready: call opencomms_task with action next", tag: "bwake" }];
fs.writeFileSync(file, JSON.stringify(s, null, 1));' "$DOORS_STUB_SCRIPT"

cat >"$DOORS/board-read.cjs" <<'EOF'
const fs = require('fs');
const [what, ...args] = process.argv.slice(2);
const lines = (file) => { try { return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)); } catch { return []; } };
const mainLoop = (r) => (r.api === 'anthropic' || r.api === 'responses') && Array.isArray(r.body.tools) && r.body.tools.length > 0;
const items = (r) => (r.api === 'anthropic' ? r.body.messages : r.body.input) || [];
const out = (v) => process.stdout.write(v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
const board = (project) => { try { return JSON.parse(fs.readFileSync(`${project}/.opencomms/state.json`, 'utf8')).board || {}; } catch { return {}; } };
if (what === 'member') { // LOG SINCE: the member id in the first opencomms_status result a request at or after SINCE showed the model
  for (const r of lines(args[0]).filter((x) => mainLoop(x) && x.at >= Number(args[1]))) {
    const m = /member_id\\*"\s*:\s*\\*"([A-Za-z0-9_.:@-]+)/.exec(JSON.stringify(items(r)));
    if (m) { out(m[1]); break; }
  }
} else if (what === 'waiting') { // PROJECT: the members waiting for work
  out(Object.keys(board(args[0]).waiting || {}).join(' '));
} else if (what === 'notices') { // LOG SINCE MARK [API]: main-loop requests (of API) at or after SINCE whose newest user message holds MARK
  const hits = lines(args[0]).filter((x) => mainLoop(x) && x.at >= Number(args[1]) && (!args[3] || x.api === args[3])).flatMap((r) => {
    const users = items(r).filter((m) => m.role === 'user');
    const text = JSON.stringify(users[users.length - 1] || '');
    const at = text.indexOf(args[2]);
    return at === -1 ? [] : [{ seq: r.seq, at: r.at, why: r.reply?.why, shown: text.slice(Math.max(0, at - 40), at + 120) }];
  });
  out(hits);
} else if (what === 'count') { // LOG SEQ TEXT: how many times request SEQ shows the model TEXT
  const r = lines(args[0]).find((x) => x.seq === Number(args[1]));
  out(r ? String(JSON.stringify(items(r)).split(args[2]).length - 1) : '');
} else if (what === 'replied') { // LOG SINCE WHY: whether a reply at or after SINCE has a reason starting with WHY
  out(lines(args[0]).some((x) => x.at >= Number(args[1]) && typeof x.reply?.why === 'string' && x.reply.why.startsWith(args[2])) ? 'yes' : '');
} else if (what === 'task') { // TASKS_JSON ID: the task as `task list --json` shows it
  let t; try { t = JSON.parse(fs.readFileSync(0, 'utf8')).tasks.find((x) => x.id === args[0]); } catch {}
  out(t);
} else if (what === 'shown') { // LOG SINCE TEXT: main-loop requests at or after SINCE, and how many times each shows TEXT
  out(lines(args[0]).filter((x) => mainLoop(x) && x.at >= Number(args[1]))
    .map((r) => ({ seq: r.seq, why: r.reply?.why, times: JSON.stringify(items(r)).split(args[2]).length - 1 })));
} else if (what === 'sources') { // HOOK_LOG: hook events as name[:source] [session]
  out(lines(args[0]).map((h) => `${h.hook_event_name}${h.source ? `:${h.source}` : ''}${h.trigger ? `(${h.trigger})` : ''} ${String(h.session_id).slice(0, 8)}`).join(', '));
}
EOF
board_read() { node "$DOORS/board-read.cjs" "$@" 2>/dev/null; }
board_task() { node "$DIST" task list --json --project "$1" 2>/dev/null | board_read task "$2"; }

# board_asks PREFIX LABEL SESSION PROJECT: the first turn, typed, asks for work
# and finds none; sets BOARD_MEMBER to the member that now waits, once the
# session is idle again.
board_asks() {
  local prefix=$1 label=$2 session=$3 project=$4
  local typed waiting
  BOARD_MEMBER=
  typed="$(doors_now)"
  doors_type "$session" "[stub:bwait] Ask the OpenComms board for work."
  if doors_until 90 bash -c '[ -n "$(node "$0" replied "$1" "$2" "tag bwait step 2")" ] && [ -n "$(node "$0" waiting "$3")" ]' \
      "$DOORS/board-read.cjs" "$DOORS_STUB_LOG" "$typed" "$project"; then
    BOARD_MEMBER="$(board_read member "$DOORS_STUB_LOG" "$typed")"
    waiting="$(board_read waiting "$project")"
    if [ -n "$BOARD_MEMBER" ] && [[ " $waiting " == *" $BOARD_MEMBER "* ]]; then
      doors_verdict "$prefix-wait" pass "$label's first turn called opencomms_task next with nothing ready; its member $BOARD_MEMBER waits for work"
    else
      doors_verdict "$prefix-wait" fail "the member the model saw in opencomms_status (${BOARD_MEMBER:-none}) is not waiting (waiting: ${waiting:-none})"
      return 1
    fi
  else
    doors_verdict "$prefix-wait" fail "$label's first turn did not end waiting for work within 90 s (waiting: $(board_read waiting "$project"))"
    doors_show_pane "$session"
    return 1
  fi
  if doors_until 30 bash -c '[ -n "$(node "$0" idle "$1" "$2")" ]' "$DOORS/read.cjs" "$project/.opencomms/turns" "$typed"; then
    echo "$label: turn record says idle: $(doors_read idle "$project/.opencomms/turns" "$typed")"
  else
    echo "$label: NOTE no turn record says idle after the first turn (files: $(ls "$project/.opencomms/turns" 2>/dev/null | tr '\n' ' '))"
  fi
}

# board_add PROJECT TITLE: the person adds a task; sets BOARD_ADDED (ms, when the command began).
board_add() {
  BOARD_ADDED="$(doors_now)"
  echo "person: opencomms task add \"$2\" -> $(at_terminal node "$DIST" task add "$2" --project "$1" 2>&1)"
}

# board_rung PREFIX LABEL SESSION PROJECT API ID MEMBER: after board_add, the
# host (API: anthropic or responses) starts a turn with the door's notice and
# its `next` claims task ID for MEMBER; then only one notice came.
board_rung() {
  local prefix=$1 label=$2 session=$3 project=$4 api=$5 id=$6 member=$7 added=$BOARD_ADDED
  local notices=
  board_noticed() { notices="$(board_read notices "$DOORS_STUB_LOG" "$added" "$BOARD_NOTICE_MARK" "$api")"; [ -n "$notices" ] && [ "$notices" != "[]" ]; }
  if doors_until 30 board_noticed; then
    local first_at
    first_at="$(printf '%s' "$notices" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8"))[0].at))')"
    doors_verdict "$prefix-wake" pass "the idle $label session started a turn with the door's notice $((first_at - added)) ms after task add began: $(printf '%s' "$notices" | node -e 'const n = JSON.parse(require("fs").readFileSync(0, "utf8"))[0]; process.stdout.write(`stub request ${n.seq} (${n.why.replace(/:.*/, "")}): ${n.shown.replace(/\\n/g, " ")}`)')"
    # Told once in that turn: the prompt hook adds no second line to the door's notice.
    local first_seq told
    first_seq="$(printf '%s' "$notices" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8"))[0].seq))')"
    told="$(board_read count "$DOORS_STUB_LOG" "$first_seq" "$TASK_READY_MARK")"
    if [ "$told" = 1 ]; then
      doors_verdict "$prefix-told-once" pass "the woken turn's first request shows \"$TASK_READY_MARK\" once (the door's notice; no hook line beside it)"
    else
      doors_verdict "$prefix-told-once" fail "the woken turn's first request (stub request $first_seq) shows \"$TASK_READY_MARK\" $told times"
    fi
  else
    doors_verdict "$prefix-wake" fail "no $label model request started with the notice (\"$BOARD_NOTICE_MARK\") within 30 s of task add; requests since: $(board_read shown "$DOORS_STUB_LOG" "$added" "task is ready")"
    echo "state.board: $(node -e 'try { process.stdout.write(JSON.stringify(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).board).slice(0, 600)); } catch {}' "$project/.opencomms/state.json")"
    echo "errors: $(node "$DIST" status --project "$project" --json 2>/dev/null | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); process.stdout.write(JSON.stringify(j.data.errors).slice(0, 600))')"
    doors_show_pane "$session"
  fi
  local task=
  board_claimed() { task="$(board_task "$project" "$id")"; printf '%s' "$task" | grep -q '"status":"claimed"'; }
  if doors_until 60 board_claimed; then
    local claimer claimed_at
    claimer="$(printf '%s' "$task" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).claimed_by))')"
    claimed_at="$(printf '%s' "$task" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).claimed_at))')"
    if [ "$claimer" = "$member" ]; then
      doors_verdict "$prefix-claim" pass "task list --json: $id claimed by $claimer ($label's member, which waited), $((claimed_at - added)) ms after task add began"
    else
      doors_verdict "$prefix-claim" fail "$id is claimed by $claimer, not by $label's waiting member $member"
    fi
  else
    doors_verdict "$prefix-claim" fail "$id not claimed within 60 s of task add: ${task:-no $id}"
    doors_show_pane "$session"
  fi
  # Rung once: the woken turn ends, and no further notice comes.
  doors_until 30 bash -c '[ -n "$(node "$0" replied "$1" "$2" "tag bwake step 1")" ]' "$DOORS/board-read.cjs" "$DOORS_STUB_LOG" "$added" >/dev/null
  sleep 5
  board_noticed
  local rings
  rings="$(printf '%s' "$notices" | node -e 'const n = JSON.parse(require("fs").readFileSync(0, "utf8") || "[]"); process.stdout.write(String(new Set(n.map((x) => x.shown.slice(x.shown.indexOf("(rung"), x.shown.indexOf("(rung") + 40))).size))')"
  if [ "$rings" = 1 ]; then
    doors_verdict "$prefix-once" pass "one door notice in $label's model requests since task add (requests showing it: $(printf '%s' "$notices" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).length))'))"
  else
    doors_verdict "$prefix-once" fail "distinct door notices in $label's model requests since task add: $rings"
  fi
}

# board_wake PREFIX LABEL SESSION PROJECT API: the wake story on a host already up in tmux.
board_wake() {
  local prefix=$1 label=$2 session=$3 project=$4 api=$5
  board_asks "$prefix" "$label" "$session" "$project" || return 1
  # The session sits idle a while, as a person would find it.
  sleep 3
  board_add "$project" "Fix the lock timeout in src/lock.ts"
  board_rung "$prefix" "$label" "$session" "$project" "$api" t1 "$BOARD_MEMBER"
  echo "status errors: $(node "$DIST" status --project "$project" --json 2>/dev/null | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); process.stdout.write(JSON.stringify(j.data.errors).slice(0, 400))')"
}

# board_busy PREFIX LABEL SESSION PROJECT API ID: a task (ID) added while the
# session's turn runs (the stub holds its last reply, the member already
# waiting): no door rings a busy session; the turn's Stop hook must tell it
# and keep it going, and its `next` claims it.
board_busy() {
  local prefix=$1 label=$2 session=$3 project=$4 api=$5 id=$6
  local hold="$DOORS/$prefix-hold" typed member
  node -e 'const fs = require("fs"); const [file, hold] = process.argv.slice(1); const s = JSON.parse(fs.readFileSync(file, "utf8"));
s.bbusy = [{ tool: "opencomms_status", input: {} }, { tool: "opencomms_task", input: { action: "next" } }, { text: "Nothing is ready; waiting for work.", after_file: hold }];
fs.writeFileSync(file, JSON.stringify(s, null, 1));' "$DOORS_STUB_SCRIPT" "$hold"
  typed="$(doors_now)"
  doors_type "$session" "[stub:bbusy] Ask the OpenComms board for work."
  if ! doors_until 90 bash -c '[ -f "$0.waiting" ] && [ -n "$(node "$1" waiting "$2")" ]' "$hold" "$DOORS/board-read.cjs" "$project"; then
    doors_verdict "$prefix-stop" fail "$label's turn did not reach its held last reply with its member waiting within 90 s"
    doors_show_pane "$session"
    return 1
  fi
  member="$(board_read member "$DOORS_STUB_LOG" "$typed")"
  board_add "$project" "Write the lock timeout test"
  sleep 2
  local released
  released="$(doors_now)"
  touch "$hold"
  local task=
  board_claimed() { task="$(board_task "$project" "$id")"; printf '%s' "$task" | grep -q '"status":"claimed"'; }
  if doors_until 60 board_claimed && [ "$(printf '%s' "$task" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).claimed_by))')" = "$member" ]; then
    local told rung
    told="$(board_read notices "$DOORS_STUB_LOG" "$released" "$TASK_READY_MARK" "$api")"
    rung="$(board_read notices "$DOORS_STUB_LOG" "$BOARD_ADDED" "$BOARD_NOTICE_MARK" "$api")"
    doors_verdict "$prefix-stop" pass "$id, added while $label's turn ran, was claimed by its member $member $(( $(printf '%s' "$task" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).claimed_at))') - released )) ms after the turn's last reply; shown: $(printf '%s' "$told" | node -e 'const n = JSON.parse(require("fs").readFileSync(0, "utf8") || "[]")[0]; process.stdout.write(n ? n.shown.replace(/\\n/g, " ") : "no notice in a user message")'); door notices while busy: $(printf '%s' "${rung:-[]}" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).length))')"
  else
    doors_verdict "$prefix-stop" fail "$id was not claimed by $label's member $member within 60 s of its turn's last reply: ${task:-no $id}; requests since: $(board_read shown "$DOORS_STUB_LOG" "$released" "task is ready")"
    doors_show_pane "$session"
  fi
}

if [[ "$DOORS_HOSTS" == *" claude-board "* ]] && command -v claude >/dev/null; then
  section "board: Claude Code idle in tmux, woken for work through its inbox"
  if doors_claude_up claude-board "$WORK/board-claude-project"; then
    board_wake claude-board "Claude Code" claude-board "$WORK/board-claude-project" anthropic \
      && board_busy claude-board "Claude Code" claude-board "$WORK/board-claude-project" anthropic t2
  fi
  "${DOORS_TMUX[@]}" kill-session -t claude-board 2>/dev/null
fi

if [[ "$DOORS_HOSTS" == *" codex-board "* ]] && command -v codex >/dev/null; then
  section "board: Codex TUI idle in tmux, woken for work through codex queue"
  if doors_codex_up codex-board "$WORK/board-codex-project"; then
    board_wake codex-board Codex codex-board "$WORK/board-codex-project" responses \
      && board_busy codex-board Codex codex-board "$WORK/board-codex-project" responses t2
  fi
  "${DOORS_TMUX[@]}" kill-session -t codex-board 2>/dev/null
fi

# Both hosts wait in one project: the first task wakes only the one that has
# waited longest (Claude Code, which asked first), the second the other.
if [[ "$DOORS_HOSTS" == *" pair "* ]] && command -v claude >/dev/null && command -v codex >/dev/null; then
  section "board: Claude Code and Codex both waiting in one project; each task wakes the longest waiter only"
  BP_PROJECT="$WORK/board-pair-project"
  if doors_claude_up pair-claude "$BP_PROJECT" && doors_codex_up pair-codex "$BP_PROJECT" \
      && board_asks pair-claude "Claude Code" pair-claude "$BP_PROJECT" && BP_CLAUDE=$BOARD_MEMBER \
      && board_asks pair-codex Codex pair-codex "$BP_PROJECT" && BP_CODEX=$BOARD_MEMBER; then
    echo "waiting since: $(node -e 'try { process.stdout.write(JSON.stringify(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).board.waiting)); } catch {}' "$BP_PROJECT/.opencomms/state.json")"
    sleep 3
    board_add "$BP_PROJECT" "Fix the lock timeout in src/lock.ts"
    BP_T1_ADDED=$BOARD_ADDED
    board_rung pair-t1 "Claude Code" pair-claude "$BP_PROJECT" anthropic t1 "$BP_CLAUDE"
    BP_QUIET="$(board_read notices "$DOORS_STUB_LOG" "$BP_T1_ADDED" "$BOARD_NOTICE_MARK" responses)"
    if [ "${BP_QUIET:-[]}" = "[]" ] && [[ " $(board_read waiting "$BP_PROJECT") " == *" $BP_CODEX "* ]]; then
      doors_verdict pair-t1-codex-not-rung pass "Codex (waited less long) got no notice for t1 and still waits for work"
    else
      doors_verdict pair-t1-codex-not-rung fail "Codex's model requests with a notice since t1 was added: ${BP_QUIET:-none}; waiting: $(board_read waiting "$BP_PROJECT")"
    fi
    board_add "$BP_PROJECT" "Review the lock timeout fix"
    board_rung pair-t2 Codex pair-codex "$BP_PROJECT" responses t2 "$BP_CODEX"
  fi
  "${DOORS_TMUX[@]}" kill-session -t pair-claude 2>/dev/null
  "${DOORS_TMUX[@]}" kill-session -t pair-codex 2>/dev/null
fi

if [[ "$DOORS_HOSTS" == *" claude-compact "* ]] && command -v claude >/dev/null; then
  . "$ROOT/scripts/check-hosts-board-compact.sh"
fi

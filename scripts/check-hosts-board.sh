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
# member that waited. Timed: add -> notice at the model, add -> claim.
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
} else if (what === 'notices') { // LOG SINCE MARK: main-loop requests at or after SINCE whose newest user message holds MARK
  const hits = lines(args[0]).filter((x) => mainLoop(x) && x.at >= Number(args[1])).flatMap((r) => {
    const users = items(r).filter((m) => m.role === 'user');
    const text = JSON.stringify(users[users.length - 1] || '');
    const at = text.indexOf(args[2]);
    return at === -1 ? [] : [{ seq: r.seq, at: r.at, why: r.reply?.why, shown: text.slice(Math.max(0, at - 40), at + 120) }];
  });
  out(hits);
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

# board_wake PREFIX LABEL SESSION PROJECT DOOR: the wake story on a host already up in tmux.
board_wake() {
  local prefix=$1 label=$2 session=$3 project=$4 door=$5
  local typed member waiting
  typed="$(doors_now)"
  doors_type "$session" "[stub:bwait] Ask the OpenComms board for work."
  if doors_until 90 bash -c '[ -n "$(node "$0" replied "$1" "$2" "tag bwait step 2")" ] && [ -n "$(node "$0" waiting "$3")" ]' \
      "$DOORS/board-read.cjs" "$DOORS_STUB_LOG" "$typed" "$project"; then
    member="$(board_read member "$DOORS_STUB_LOG" "$typed")"
    waiting="$(board_read waiting "$project")"
    if [ -n "$member" ] && [ "$waiting" = "$member" ]; then
      doors_verdict "$prefix-wait" pass "$label's first turn called opencomms_task next with nothing ready; its member $member waits for work"
    else
      doors_verdict "$prefix-wait" fail "the member the model saw in opencomms_status (${member:-none}) is not the one waiting (${waiting:-none})"
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
  # The session sits idle a while, as a person would find it.
  sleep 3

  local added added_out
  added="$(doors_now)"
  added_out="$(node "$DIST" task add "Fix the lock timeout in src/lock.ts" --project "$project" 2>&1)"
  echo "person: opencomms task add -> $added_out"
  local notices=
  board_noticed() { notices="$(board_read notices "$DOORS_STUB_LOG" "$added" "$BOARD_NOTICE_MARK")"; [ -n "$notices" ] && [ "$notices" != "[]" ]; }
  if doors_until 30 board_noticed; then
    local first_at
    first_at="$(printf '%s' "$notices" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8"))[0].at))')"
    doors_verdict "$prefix-wake" pass "the idle session started a turn with the door's notice $((first_at - added)) ms after task add began: $(printf '%s' "$notices" | node -e 'const n = JSON.parse(require("fs").readFileSync(0, "utf8"))[0]; process.stdout.write(`stub request ${n.seq} (${n.why}): ${n.shown.replace(/\\n/g, " ")}`)')"
  else
    doors_verdict "$prefix-wake" fail "no model request started with the notice (\"$BOARD_NOTICE_MARK\") within 30 s of task add; requests since: $(board_read shown "$DOORS_STUB_LOG" "$added" "task is ready")"
    echo "board: $(node "$DIST" task list --json --project "$project" 2>/dev/null | tr -d '\n ' | head -c 400)"
    echo "state.board: $(node -e 'try { process.stdout.write(JSON.stringify(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).board).slice(0, 600)); } catch {}' "$project/.opencomms/state.json")"
    echo "errors: $(node "$DIST" status --project "$project" --json 2>/dev/null | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); process.stdout.write(JSON.stringify(j.data.errors).slice(0, 600))')"
    doors_show_pane "$session"
  fi
  local task=
  board_claimed() { task="$(board_task "$project" t1)"; printf '%s' "$task" | grep -q '"status":"claimed"'; }
  if doors_until 60 board_claimed; then
    local claimer claimed_at
    claimer="$(printf '%s' "$task" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).claimed_by))')"
    claimed_at="$(printf '%s' "$task" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).claimed_at))')"
    if [ "$claimer" = "$member" ]; then
      doors_verdict "$prefix-claim" pass "task list --json: t1 claimed by $claimer (the member that waited), $((claimed_at - added)) ms after task add began"
    else
      doors_verdict "$prefix-claim" fail "t1 is claimed by $claimer, not by the waiting member $member"
    fi
  else
    doors_verdict "$prefix-claim" fail "t1 not claimed within 60 s of task add: ${task:-no t1}"
    doors_show_pane "$session"
  fi
  # Rung once: the turn ends, and no further notice comes.
  doors_until 30 bash -c '[ -n "$(node "$0" replied "$1" "$2" "tag bwake step 1")" ]' "$DOORS/board-read.cjs" "$DOORS_STUB_LOG" "$added" >/dev/null
  sleep 5
  board_noticed
  local rings
  rings="$(printf '%s' "$notices" | node -e 'const n = JSON.parse(require("fs").readFileSync(0, "utf8") || "[]"); process.stdout.write(String(new Set(n.map((x) => x.shown.slice(x.shown.indexOf("(rung"), x.shown.indexOf("(rung") + 40))).size))')"
  if [ "$rings" = 1 ]; then
    doors_verdict "$prefix-once" pass "one door notice in the model's requests since task add (requests showing it: $(printf '%s' "$notices" | node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).length))'))"
  else
    doors_verdict "$prefix-once" fail "distinct door notices since task add: $rings"
  fi
  echo "status errors: $(node "$DIST" status --project "$project" --json 2>/dev/null | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); process.stdout.write(JSON.stringify(j.data.errors).slice(0, 400))')"
}

if [[ "$DOORS_HOSTS" == *" claude-board "* ]] && command -v claude >/dev/null; then
  section "board: Claude Code idle in tmux, woken for work through its inbox"
  if doors_claude_up claude-board "$WORK/board-claude-project"; then
    board_wake claude-board "Claude Code" claude-board "$WORK/board-claude-project" inbox
  fi
  "${DOORS_TMUX[@]}" kill-session -t claude-board 2>/dev/null
fi

if [[ "$DOORS_HOSTS" == *" codex-board "* ]] && command -v codex >/dev/null; then
  section "board: Codex TUI idle in tmux, woken for work through codex queue"
  if doors_codex_up codex-board "$WORK/board-codex-project"; then
    board_wake codex-board Codex codex-board "$WORK/board-codex-project" codex_queue
  fi
  "${DOORS_TMUX[@]}" kill-session -t codex-board 2>/dev/null
fi

if [[ "$DOORS_HOSTS" == *" claude-compact "* ]] && command -v claude >/dev/null; then
  . "$ROOT/scripts/check-hosts-board-compact.sh"
fi

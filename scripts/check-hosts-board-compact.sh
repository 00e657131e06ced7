# Sourced by scripts/check-hosts-board.sh: a Claude Code session that holds a
# claim is restated it at SessionStart after compaction and after a resume.
#
# Headless (`claude -p`, through scripts/claude-turn.mjs): a turn claims t1;
# `claude -p --resume ID "/compact"`; then `claude -p --resume ID` with a
# prompt, whose model requests must show the digest. Interactive (tmux): a
# turn claims t1 with `next`, /compact is typed, then a prompt: with no resume
# in between, only SessionStart source compact can have carried the digest.
# A hook of our own logs every SessionStart, PreCompact and PostCompact with
# its source, so what Claude Code fired is reported as seen.

BC_DIR="$DOORS/compact"
BC_HOOKS="$BC_DIR/hook-events.jsonl"
mkdir -p "$BC_DIR"
: >"$BC_HOOKS"
cat >"$BC_DIR/log-hook.cjs" <<'EOF'
let input = '';
process.stdin.setEncoding('utf8').on('data', (c) => { input += c; }).on('end', () => {
  let event;
  try { event = JSON.parse(input); } catch { event = { unparsed: input }; }
  require('fs').appendFileSync(process.argv[2], `${JSON.stringify({ ...event, logged_at: Date.now() })}\n`);
});
EOF
# Our logger beside the hooks install wrote (Claude Code merges the hooks of its settings files).
bc_logger() { # project
  node -e 'const [project, logger, log] = process.argv.slice(1); const fs = require("fs");
const file = `${project}/.claude/settings.local.json`;
const s = JSON.parse(fs.readFileSync(file, "utf8"));
s.hooks = s.hooks || {};
for (const e of ["SessionStart", "PreCompact", "PostCompact"]) {
  s.hooks[e] = [...(s.hooks[e] || []), { hooks: [{ type: "command", command: `node "${logger}" "${log}"`, timeout: 15 }] }];
}
fs.writeFileSync(file, JSON.stringify(s, null, 2));' "$1" "$BC_DIR/log-hook.cjs" "$BC_HOOKS"
}
bc_turn() { # name, project, claude args...
  local name=$1 project=$2
  shift 2
  (cd "$project" && "${DC_ENV[@]}" node "$ROOT/scripts/claude-turn.mjs" --name "$name" --out "$BC_DIR" \
    --stub-log "$DOORS_STUB_LOG" --timeout 150 --find "$BOARD_DIGEST" -- claude -p "$@" --output-format stream-json --verbose)
}
bc_json() { node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); const v = s[process.argv[2]];
process.stdout.write(v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));' "$BC_DIR/$1.json" "$2" 2>/dev/null; }
bc_sources() { # session id: the logged hook events of that session
  node -e 'const [file, sid] = process.argv.slice(1);
const seen = require("fs").readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((h) => h.session_id === sid);
process.stdout.write(seen.map((h) => h.hook_event_name + (h.source ? ":" + h.source : "") + (h.trigger ? "(" + h.trigger + ")" : "")).join(" "));' "$BC_HOOKS" "$1" 2>/dev/null
}

section "board: a Claude Code session holding a claim, compacted and resumed headless (claude -p)"
BC_PROJECT="$WORK/board-compact-project"
doors_claude_project "$BC_PROJECT"
bc_logger "$BC_PROJECT"
echo "person: opencomms task add -> $(at_terminal node "$DIST" task add "Fix the lock timeout in src/lock.ts" --project "$BC_PROJECT" 2>&1)"
bc_turn bc-claim "$BC_PROJECT" "[stub:cclaim] Claim task t1 on the OpenComms board."
BC_SID="$(bc_json bc-claim session_id)"
BC_TASK="$(board_task "$BC_PROJECT" t1)"
BC_CLAIMER="$(printf '%s' "$BC_TASK" | node -e 'try { process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).claimed_by ?? "")); } catch {}')"
if printf '%s' "$BC_TASK" | grep -q '"status":"claimed"' && [ -n "$BC_SID" ]; then
  doors_verdict claude-compact-claim pass "session $BC_SID claimed t1 (member $BC_CLAIMER); SessionStart digest at its start: $(bc_json bc-claim found | grep -q null && echo none || echo shown)"
  bc_turn bc-compact "$BC_PROJECT" --resume "$BC_SID" "/compact"
  echo "claude -p --resume $BC_SID /compact: exit $(bc_json bc-compact exit_code), $(bc_json bc-compact wall_ms) ms, model requests $(bc_json bc-compact model_requests), session $(bc_json bc-compact session_id); its result: $(grep '"type":"result"' "$BC_DIR/bc-compact.stream.jsonl" | head -1 | head -c 300)"
  echo "hook events so far for $BC_SID: $(bc_sources "$BC_SID")"
  BC_SINCE="$(doors_now)"
  bc_turn bc-after "$BC_PROJECT" --resume "$BC_SID" "[stub:cafter] What do you hold on the board?"
  BC_EVENTS="$(bc_sources "$BC_SID")"
  echo "hook events of $BC_SID (ours, in order): $BC_EVENTS"
  if [[ " $BC_EVENTS " == *" SessionStart:compact "* ]]; then
    doors_verdict claude-compact-headless-source pass "claude -p --resume ID \"/compact\" compacted: SessionStart fired with source compact"
  else
    doors_verdict claude-compact-headless-source fail "no SessionStart with source compact for $BC_SID after claude -p --resume ID \"/compact\" (events: $BC_EVENTS)"
  fi
  BC_FOUND="$(bc_json bc-after found)"
  if [ -n "$BC_FOUND" ] && ! printf '%s' "$BC_FOUND" | grep -q ':null'; then
    doors_verdict claude-compact-headless-digest pass "after /compact, the resumed run's model was shown the digest: $(printf '%s' "$BC_FOUND" | head -c 300); per request: $(board_read shown "$DOORS_STUB_LOG" "$BC_SINCE" "$BOARD_DIGEST")"
  else
    doors_verdict claude-compact-headless-digest fail "the resumed run's model was not shown \"$BOARD_DIGEST\" (found: ${BC_FOUND:-no record}; exit $(bc_json bc-after exit_code))"
  fi
else
  doors_verdict claude-compact-claim fail "the first headless turn did not claim t1 (session ${BC_SID:-none}; t1: ${BC_TASK:-none}; exit $(bc_json bc-claim exit_code); stderr: $(head -c 300 "$BC_DIR/bc-claim.stderr"))"
fi

section "board: an interactive Claude Code session holding a claim, /compact typed in tmux"
BI_PROJECT="$WORK/board-compact-tui-project"
if doors_claude_up claude-compact "$BI_PROJECT"; then
  bc_logger "$BI_PROJECT"
  echo "person: opencomms task add -> $(at_terminal node "$DIST" task add "Fix the lock timeout in src/lock.ts" --project "$BI_PROJECT" 2>&1)"
  BI_TYPED="$(doors_now)"
  doors_type claude-compact "[stub:bwait] Ask the OpenComms board for work."
  BI_TASK=
  bi_claimed() { BI_TASK="$(board_task "$BI_PROJECT" t1)"; printf '%s' "$BI_TASK" | grep -q '"status":"claimed"'; }
  if doors_until 90 bi_claimed && doors_until 30 bash -c '[ -n "$(node "$0" idle "$1" "$2")" ]' "$DOORS/read.cjs" "$BI_PROJECT/.opencomms/turns" "$BI_TYPED"; then
    echo "claude (tmux) claimed t1 with next; its turn ended"
    BI_COMPACT="$(doors_now)"
    doors_type claude-compact "/compact"
    bi_compacted() { node -e 'const [file, since] = process.argv.slice(1);
process.exit(require("fs").readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
  .some((h) => h.hook_event_name === "SessionStart" && h.source === "compact" && h.logged_at >= Number(since)) ? 0 : 1);' "$BC_HOOKS" "$BI_COMPACT"; }
    if doors_until 90 bi_compacted; then
      echo "SessionStart:compact fired $(( $(doors_now) - BI_COMPACT )) ms after /compact was typed (or sooner)"
      sleep 2
      BI_SINCE="$(doors_now)"
      doors_type claude-compact "[stub:cafter] What do you hold on the board?"
      bi_after() { [ -n "$(board_read replied "$DOORS_STUB_LOG" "$BI_SINCE" "tag cafter step 0")" ]; }
      doors_until 60 bi_after
      BI_SHOWN="$(board_read shown "$DOORS_STUB_LOG" "$BI_SINCE" "$BOARD_DIGEST")"
      if printf '%s' "$BI_SHOWN" | grep -q '"times":[1-9]'; then
        doors_verdict claude-compact-tui-digest pass "after an interactive /compact (SessionStart source compact, no resume), the model's next turn was shown \"$BOARD_DIGEST\": $BI_SHOWN"
      else
        doors_verdict claude-compact-tui-digest fail "the model's turn after /compact was not shown the digest (requests: ${BI_SHOWN:-none})"
        doors_show_pane claude-compact
      fi
    else
      doors_verdict claude-compact-tui-digest fail "no SessionStart with source compact within 90 s of typing /compact (events: $(board_read sources "$BC_HOOKS"))"
      doors_show_pane claude-compact
    fi
  else
    doors_verdict claude-compact-tui-digest fail "the interactive session did not claim t1 and go idle within 90 s (t1: ${BI_TASK:-none})"
    doors_show_pane claude-compact
  fi
  "${DOORS_TMUX[@]}" kill-session -t claude-compact 2>/dev/null
fi

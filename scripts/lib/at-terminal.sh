# at_terminal CMD...: runs a person's command as the person runs it, at a
# terminal. OpenComms refuses a person's action (say, read, task add, ...)
# from a process with no controlling terminal (PROTOCOL.md 5.7).
# Run from a terminal, the command simply inherits it; run detached or under
# CI, it gets a terminal of its own from script(1) (util-linux), and its
# output loses the terminal's carriage returns. Exits with the command's
# status. Sourced by the check-hosts scripts.
at_terminal() {
  if ( : </dev/tty ) 2>/dev/null || ! command -v script >/dev/null 2>&1; then
    "$@"
    return
  fi
  local status
  script -qec "$(printf '%q ' "$@")" /dev/null | tr -d '\r'
  status=${PIPESTATUS[0]}
  return "$status"
}

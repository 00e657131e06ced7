// The text of `opencomms --help`: every command and flag, in one place.
export const HELP_TEXT = `opencomms - messaging between coding-agent sessions over MCP

Usage:
  opencomms [serve] [DIR] [--project DIR] [--host ID] [--store URL]
      Run the MCP stdio server (what a host's MCP config starts).
  opencomms install <host> [--project DIR] [--member ID] [--dry-run] [--plugin] [--apply]
                  [--i-have-read-the-project-config] [--store URL]
      Add OpenComms to a host's config (claude-code, codex, gemini-cli, opencode,
      cursor, vscode; claude-desktop, windsurf and goose get a snippet to paste).
      --plugin (claude-code): install as a Claude Code plugin; --apply runs the
      claude commands that enable it. codex, gemini-cli: --apply writes the trust
      lines into your own config; it refuses while the project's host config holds
      servers, hooks or settings OpenComms did not write, and lists them, until you
      add --i-have-read-the-project-config. --store: the Redis store (and
      $OPENCOMMS_PROJECT_ID) the host's server and hooks use; never a password.
  opencomms uninstall <host> [--project DIR] [--dry-run]
      Remove exactly what install added.
  opencomms pin [--project DIR] [--host ID] [--id ID]
      Mint a member id (or record --id) as a pin of this host and print it.
  opencomms status [--project DIR] [--json] [--store URL]
      Show the channels, members, pending mail and recent errors of a project.
  opencomms watch [--project DIR] [--member ID] [--json] [--notify CMD] [--store URL]
      A live view of the project; with --member, one line per new mail batch.
      On a terminal, keys act as the person: ? lists them (docs/person.md).
      --notify CMD runs CMD (split at spaces, no shell) with the channel,
      sender and kind as arguments when mail reaches you or a channel pauses for you.
  opencomms say CHANNEL [--to ROLE|ID] [--type manual|review_request|review_response]
                [--reply-to ID] [--role ROLE] TEXT|-
      Post to a channel as the person of this OS user (person-<user>), joining it
      under --role (default person) on the first say. Without --to, a reply goes
      to the sender of the message it answers, anything else to every member.
      Lifts a loop-guard pause. Refused inside an agent host (agents use their tools).
  opencomms read [CHANNEL] [--json]
      Print your own mail (as person-<user>); it counts as delivered once printed.
  opencomms pause CHANNEL | opencomms resume CHANNEL
      Pause a channel, or resume it (also a pause the loop guard made, which
      only a person may lift).
  opencomms reservations [--json] [--release ID] [--release-member ID] [--project DIR] [--store URL]
      List every edit reservation that holds (as the hooks judge it); --release
      frees one by id, --release-member all of one member's.
  opencomms task [list [--all] | show ID | add TITLE | done ID | release ID | cancel ID | answer ID TEXT] [--json]
      The task board (docs/board.md): with no action, the tasks that are ready.
      add takes [--details TEXT] [--priority 0-3] [--after ID,…] [--paths GLOB]…
      [--for ROLE|ID] [--channel C]; done takes [--result TEXT]. A change of the
      board is a person's action: it needs your own terminal, as say does.
  opencomms hook [--project DIR] [--wait] [--timeout 30m] [--store URL]
      Run a host hook: reads the event JSON on stdin, answers on stdout.
      --wait: wait for new mail and exit 2 when it comes (asyncRewake).
  opencomms doctor [--project DIR] [--fix] [--json] [--store URL]
      Check the set-up; --fix repairs what is safe to repair.
  opencomms migrate --to redis://…|rediss://…|file [--project DIR]
      Copy a project between stores: --to a Redis URL copies this project's
      .opencomms files into Redis; --to file copies the Redis project named by
      $OPENCOMMS_STORE and $OPENCOMMS_PROJECT_ID into .opencomms. Refuses a
      target that already holds a project; checks the copy; the source stays.
  opencomms --version | --help

Flags:
  --project DIR   the project whose .opencomms/ holds the state
                  (default: $OPENCOMMS_PROJECT_DIR, else the current folder)
  --host ID       the host label members are registered and pinned under (default: mcp);
                  1-64 letters, digits, _ or -, starting with a letter or digit
  --id ID         the member id to pin instead of a fresh one
  --member ID     install: a fixed id for every session of the host (normally each
                  session gets its own); watch: the member to follow
  --store URL     file (the default) or a Redis store: redis://user@127.0.0.1:6379/0
                  (loopback only) or rediss://user@host:port/db (TLS); wins over
                  $OPENCOMMS_STORE. The password never goes here.
  --to URL|file   migrate: the store to copy the project into (same URL rules as --store)
  --to ROLE|ID    say: the member to write to (default: every other member)
  --json          machine-readable output

Environment:
  OPENCOMMS_MEMBER_ID     the member identity this server speaks as
  OPENCOMMS_PROJECT_DIR   the default project folder
  OPENCOMMS_PROJECT_ID    the project id stamped on channels (default: local-project);
                          required with a Redis store, where it names the project
  OPENCOMMS_NO_SPAWN=1    no spawn-push deliveries from this process
  OPENCOMMS_CLAUDE_BIN, OPENCOMMS_CODEX_BIN   spawn-push binary overrides
  OPENCOMMS_STORE         file (default) or redis://… / rediss://… (see --store)
  OPENCOMMS_STORE_PASSWORD, OPENCOMMS_STORE_PASSWORD_FILE
                          the store password, or a file holding it (mode 600)
  OPENCOMMS_STORE_CA      a CA bundle (PEM) for rediss:// with a private CA

Exit codes: 0 ok, 1 failure, 2 usage error.
`;

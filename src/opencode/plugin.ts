// One OpenComms presence inside one OpenCode instance: it learns which
// sessions live here from OpenCode's events, pushes their members' mail when
// they go idle or when the state changes, keeps their away marks in step with
// their lifetime, reminds them of their roles, and offers the OpenComms tools,
// through which each session speaks as its own member (session-members.ts).
import { processHostTag } from '../process/place';
import { findGoneHolders, isInChannels, pendingRecipients, type DeliveryOwner, type EngineCtx, type State } from '../engine';
import { openStore, type Store, type StoreSelection } from '../store';
import { type StateWatcher } from '../local/state-dir-watch';
import { isHolderRunning } from '../process/liveness';
import type { HostEvent, HostPluginInput, HostToolDefinition, SchemaKit } from './host-types';
import { locationOf, OPENCODE_HOST_ID } from './identity';
import { findProjectDir } from './project-dir';
import { PushDelivery, type Schedule } from './push-delivery';
import { roleSections } from './role-injection';
import { claimSections, promptWake, wakedMembers } from './work-wake';
import { SessionMembers } from './session-members';
import { buildTools } from './tools';
import { bashCommandOf, filesOpenCodeWrites, openCodeRefusal, openCodeShellKey } from './edit-guard';
import { changedSinceRecord, recordHeldFiles } from '../hooks/shell-check';
import { reportShellWrites } from '../hooks/post-tool';
import { randomHex } from '../process/crypto';

export interface OpenCommsPluginDeps {
  /** The project whose .opencomms/ is used; found from the directory when absent. */
  projectDir?: string;
  /** Which store (OPENCOMMS_STORE, resolved by the entry); the project's files when absent. */
  selection?: StoreSelection;
  store?: Store;
  watch?: (stateDir: string, log: (line: string) => void) => StateWatcher;
  /** OpenCode's tool schema builder; without one no tools are offered. */
  loadSchema?: () => Promise<SchemaKit | undefined>;
  pid?: number;
  host?: string;
  isOwnerAlive?: (owner: DeliveryOwner) => boolean;
  schedule?: Schedule;
  /** The clock that paces re-confirming a session's link; the store's own clock stamps the state. */
  now?: () => number;
  log?: (line: string) => void;
}

/** The hooks this plugin gives OpenCode (a subset of @opencode-ai/plugin's Hooks). */
export interface OpenCommsHooks {
  event(input: { event: HostEvent }): Promise<void>;
  /** Throws (OpenCode's way to stop a tool) when the call would write a file another member holds exclusively. */
  'tool.execute.before'(input: { tool: string; sessionID?: string; callID?: string }, output: { args: Record<string, unknown> }): Promise<void>;
  /** After a bash call: adds to its output the held files it changed (their holders are told). */
  'tool.execute.after'(input: { tool: string; sessionID?: string; callID?: string; args?: Record<string, unknown> }, output: { output?: unknown }): Promise<void>;
  'experimental.chat.system.transform'(input: { sessionID?: string }, output: { system: string[] }): Promise<void>;
  tool?: Record<string, HostToolDefinition>;
  dispose(): Promise<void>;
}

export interface OpenCommsInstance {
  hooks: OpenCommsHooks;
  delivery: PushDelivery;
  /** Sessions this instance has seen an event for: the only ones it pushes to on state changes. */
  localSessions: ReadonlySet<string>;
  /** Which member each OpenCode session speaks as. */
  members: SessionMembers;
  /** Resolves when every piece of work started by an event or a state change has finished. */
  settle(): Promise<void>;
}

function sessionIdOf(event: HostEvent): string | undefined {
  const props = event.properties ?? {};
  if (typeof props.sessionID === 'string') return props.sessionID;
  const info = props.info as { id?: unknown } | undefined;
  return event.type.startsWith('session.') && typeof info?.id === 'string' ? info.id : undefined;
}

/** Starts the plugin for one OpenCode instance. */
export async function startOpenComms(input: HostPluginInput, deps: OpenCommsPluginDeps = {}): Promise<OpenCommsInstance> {
  const log = deps.log ?? ((line: string) => process.stderr.write(`opencomms(opencode): ${line}\n`));
  const store = deps.store ?? openStore({ projectDir: deps.projectDir ?? findProjectDir(input.directory, input.worktree), selection: deps.selection });
  const machine = deps.host ?? processHostTag();
  const pid = deps.pid ?? process.pid;
  // A delivery by another process on this machine is alive while its pid
  // runs; one from another machine can only be judged by its lease.
  const isOwnerAlive = deps.isOwnerAlive ?? ((owner: DeliveryOwner) => isHolderRunning(owner, machine));
  const local = new Set<string>();
  const busy = new Set<string>();
  const members = new SessionMembers(store, deps.now);

  // The session of this instance that speaks as the member, among those whose member is known;
  // the one seen last wins should two ever share a member.
  function sessionOf(memberId: string): string | undefined {
    let found: string | undefined;
    for (const sessionId of local) if (members.cached(sessionId) === memberId) found = sessionId;
    return found;
  }

  // The member of a session named by a hook's input (none for a missing or empty id, or a session with no member yet).
  function memberOfSession(state: State, sessionId: string | undefined): string | undefined {
    return typeof sessionId === 'string' && sessionId !== '' ? members.learn(state, sessionId) : undefined;
  }

  // Learns the members of this instance's sessions from a state already read.
  function learnLocal(state: State): void {
    for (const sessionId of local) members.learn(state, sessionId);
  }

  const delivery = new PushDelivery({
    store, client: input.client, pid, host: machine, isOwnerAlive, sessionOf, isBusy: (id) => busy.has(id), schedule: deps.schedule, log,
  });
  const work = new Set<Promise<unknown>>();

  function track(promise: Promise<unknown>, what: string): void {
    const guarded = promise.catch((err: unknown) => log(`${what} failed: ${err instanceof Error ? err.message : String(err)}`));
    work.add(guarded);
    void guarded.finally(() => work.delete(guarded));
  }

  function noteSession(sessionId: string): void {
    // Re-added so the session seen last comes last (sessionOf).
    local.delete(sessionId);
    local.add(sessionId);
  }

  // Recover pushes a crashed process left in flight. Only dead or expired
  // owners are swept: a live process may be prompting right now, and taking
  // its mail back would deliver it twice.
  // A store fault here (lock_timeout, state_unwritable) must not keep the
  // plugin from loading: every push sweeps again before it drains.
  try {
    const atStart = await store.readLatest((state) => state);
    if (Object.values(atStart.messages).some((e) => e.delivery_status === 'in_flight')) {
      // Judged here, on the state just read; the sweep treats every other holder as alive.
      const swept = await store.mutate('push_sweep', { gone: findGoneHolders(atStart, isOwnerAlive) });
      const requeued = swept.ok ? swept.data.requeued.length : 0;
      if (requeued > 0) log(`start-up sweep re-queued ${requeued} abandoned delivery(ies)`);
    }
  } catch (err) {
    log(`start-up sweep failed; the next push sweeps instead: ${err instanceof Error ? err.message : String(err)}`);
  }

  // Whether a member is in any channel, in the latest state there is.
  function isMember(memberId: string): Promise<boolean> {
    return store.readLatest((state: State): boolean => isInChannels(state, memberId));
  }

  // Idle is where a session comes back: its member is seen now and no longer away (an old
  // plugin's member is adopted here), and its waiting mail is pushed.
  async function onIdle(sessionId: string): Promise<void> {
    busy.delete(sessionId);
    const memberId = await members.touch(sessionId);
    if (memberId === undefined) return;
    // A member rung for work is prompted whether or not it is in a channel (the board is the project's).
    await wakeIfRung(memberId, sessionId);
    if (!(await isMember(memberId))) return;
    await delivery.deliver(memberId);
  }

  // The board rang this member for work: an idle local session is prompted once (work-wake.ts).
  async function wakeIfRung(memberId: string, sessionId: string): Promise<void> {
    if (busy.has(sessionId)) return;
    const rung = await store.readLatest((state) => wakedMembers(state, [memberId]).length > 0);
    if (rung) await promptWake(store, input.client, memberId, sessionId);
  }

  // OpenCode's nearest thing to a session end: the member is away, and its mail waits.
  async function onDeleted(sessionId: string): Promise<void> {
    local.delete(sessionId);
    busy.delete(sessionId);
    const memberId = members.find(sessionId);
    if (memberId === undefined) return;
    // A retry scheduled before the deletion must not prompt the deleted session.
    delivery.forget(memberId);
    if (!(await isMember(memberId))) return;
    await store.mutate('push_session_gone', { member: memberId });
  }

  // Owner-side rule: only members whose session is proven to live in this
  // instance are prompted. Busy ones are skipped inside delivery.deliver,
  // which every push goes through, retries and re-runs included.
  function pushToLocal(memberIds: readonly string[]): void {
    for (const memberId of memberIds) {
      if (sessionOf(memberId) !== undefined) track(delivery.deliver(memberId), `push to ${memberId}`);
    }
  }

  function onStateChange(): void {
    let pending: string[];
    try {
      pending = store.read((state) => {
        learnLocal(state);
        for (const memberId of wakedMembers(state, [...local].map((id) => members.cached(id)).filter((id): id is string => id !== undefined))) {
          const sessionId = sessionOf(memberId);
          if (sessionId !== undefined && !busy.has(sessionId)) track(promptWake(store, input.client, memberId, sessionId), `waking ${memberId} for work`);
        }
        return pendingRecipients(state);
      });
    } catch (err) {
      log(`reading state after a change failed: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    pushToLocal(pending);
  }

  // A send's recipients may include a session seen here whose member was not looked up yet.
  function pushSent(memberIds: readonly string[]): void {
    if (memberIds.some((id) => sessionOf(id) === undefined)) {
      try {
        store.read((state) => learnLocal(state));
      } catch (err) {
        log(`reading state after a send failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    pushToLocal(memberIds);
  }

  // On Redis the watch loads the state before it wakes onStateChange, so its read sees the change.
  const watcher = deps.watch ? deps.watch(store.stateDir, log) : store.watch({ log });
  const unsubscribe = watcher.onChange(onStateChange);

  const schema = deps.loadSchema ? await deps.loadSchema() : undefined;
  if (!schema) log('OpenCode tool schema builder not found; no opencomms_* tools are offered here');

  const hooks: OpenCommsHooks = {
    async event({ event }) {
      const sessionId = sessionIdOf(event);
      if (sessionId === undefined) return;
      if (event.type === 'session.deleted') {
        track(onDeleted(sessionId), `marking the member of ${sessionId} away`);
        return;
      }
      noteSession(sessionId);
      const status = (event.properties?.status as { type?: unknown } | undefined)?.type;
      if (event.type === 'session.idle' || (event.type === 'session.status' && status === 'idle')) {
        track(onIdle(sessionId), `idle delivery to ${sessionId}`);
      } else if (event.type === 'session.status' && (status === 'busy' || status === 'retry')) {
        busy.add(sessionId);
      }
    },

    async 'tool.execute.before'(toolInput, output) {
      const call = filesOpenCodeWrites(toolInput.tool, output.args ?? {}, input.directory);
      const command = bashCommandOf(toolInput.tool, output.args);
      if (call.files.length === 0 && command === undefined) return;
      const sessionId = toolInput.sessionID;
      let refusal: string | undefined;
      try {
        refusal = await store.readLatest((state, ctx) => {
          const memberId = memberOfSession(state, sessionId);
          const denied = openCodeRefusal(state, memberId, call, store.projectDir, input.directory, ctx.now(), () => randomHex(8), log);
          // A bash call that may run: what others hold is recorded, for the check after it.
          if (denied === undefined && command !== undefined) {
            try {
              recordHeldFiles(state, memberId, store.projectDir, () => openCodeShellKey(sessionId, toolInput.callID, command), ctx.now());
            } catch (err) {
              log(`could not record the held files before a bash call: ${err instanceof Error ? err.message : String(err)}`);
            }
          }
          return denied;
        });
      } catch (err) {
        // Fail open, as every host's hook does: the tool runs and the trouble is logged.
        log(`could not check the reservations before ${toolInput.tool}: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      if (refusal !== undefined) throw new Error(refusal);
    },

    async 'tool.execute.after'(toolInput, output) {
      const command = bashCommandOf(toolInput.tool, toolInput.args);
      if (command === undefined) return;
      const sessionId = toolInput.sessionID;
      try {
        const changed = changedSinceRecord(store.projectDir, openCodeShellKey(sessionId, toolInput.callID, command));
        if (changed.length === 0) return;
        const { state, memberId, now } = await store.readLatest((latest, ctx) => ({ state: latest, now: ctx.now(), memberId: memberOfSession(latest, sessionId) }));
        const notice = await reportShellWrites(store, state, OPENCODE_HOST_ID, memberId, changed, now);
        // The tool's output is what the model reads of the call: the notice goes after it.
        if (notice !== undefined) output.output = typeof output.output === 'string' && output.output !== '' ? `${output.output}\n\n${notice}` : notice;
      } catch (err) {
        log(`could not check the held files after a bash call: ${err instanceof Error ? err.message : String(err)}`);
      }
    },

    async 'experimental.chat.system.transform'(transformInput, output) {
      const sessionId = transformInput.sessionID;
      if (typeof sessionId !== 'string' || sessionId === '') return;
      noteSession(sessionId);
      const sections = (state: State, ctx: EngineCtx): string[] => {
        const memberId = members.learn(state, sessionId);
        return memberId === undefined ? [] : [...roleSections(state, memberId), ...claimSections(state, memberId, ctx.now(), randomHex(8))];
      };
      output.system.push(...(await store.readLatest(sections)));
    },

    async dispose() {
      unsubscribe();
      watcher.close();
      delivery.close();
    },
  };
  if (schema) {
    // On Redis the project is the Redis project, shared with every machine's members (PROTOCOL 9.1).
    const shared = store.describe().shared;
    const location = shared === undefined ? locationOf(input) : { project_id: shared.projectId, worktree: store.location };
    hooks.tool = buildTools({ store, client: input.client, location, members, noteSession, onSent: pushSent, log }, schema);
  }

  return {
    hooks,
    delivery,
    localSessions: local,
    members,
    async settle() {
      while (work.size > 0) await Promise.allSettled([...work]);
      await delivery.settle();
    },
  };
}

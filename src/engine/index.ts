// The engine's public API. Everything here is pure: time, ids, nonces,
// hashing and history come in through EngineCtx.
export * from './types';
export * from './archive-types';
export * from './task-types';
export * from './reasons';
export * from './constants';
export { emptyState, parseState, serializeState, migrateV1 } from './state-codec';
export { createChannel, joinChannel, updateRole, pauseChannel, resumeChannel } from './channels';
export type { CreateChannelInput, JoinChannelInput, ChannelCall, MemberOptions } from './channels';
export { disconnectChannel, isKickNoticeOf, kickChannel } from './leave';
export type { KickInput } from './leave';
export { sendMessage, SENDER_MESSAGE_TYPES } from './send';
export { imitatesPersonId, isPersonMemberId, personMemberId, personTerminalOf, PERSON_ID_PREFIX, PERSON_HOST, DEFAULT_PERSON_ROLE } from './person';
export type { PersonAction, PersonTerminal } from './person';
export { PERSON_ACTIONS_KEPT, recordPersonAction } from './person-log';
export type { PersonActor } from './person-log';
export { personRead, personRelease, personSay, personSetPause, PERSON_ROLE_PROMPT } from './person-actions';
export type { PersonMail, PersonReadOptions, PersonSayInput } from './person-actions';
export {
  checkLoopGuard, clearPause, countMessage, describeStreakPause, isStreakPause, loopGuardView, maxAgentStreakOf, pauseRefusal, resumeRefusal,
} from './loop-guard';
export type { StreakOutcome } from './loop-guard';
export type { SendMessageInput } from './send';
export {
  drainQueue, commitDelivery, deliveryPathOf, requeueFailedDelivery, returnUnsentDelivery, sweepInFlight, isAbandonedDelivery, expireAgedOut, pendingRecipients,
  cooldownRemainingMs,
} from './delivery';
export type { DrainOptions, RequeueOutcome } from './delivery';
export { pullMessages, inbox, frameForDelivery, channelNameOf } from './pull';
export { describeHeld, heldIn, heldMailOf, pauserOf, pendingInChannel } from './held-mail';
export type { HeldMail, PauserKind } from './held-mail';
export { claimSpeaker, isSpokenFor, speakerJudge, SPEAKER_LEASE_MS } from './speaker-leases';
export { activeWaitLease, takeWaitLease, renewWaitLease, releaseWaitLease, replaceWaitLease } from './wait-leases';
export type { PullOptions, InboxInput } from './pull';
export {
  activeSpawnLease, takeSpawnLease, releaseSpawnLease, extendSpawnLease, spawnMemberships, recordMemberError,
} from './spawn-leases';
export type { SpawnMembership } from './spawn-leases';
export { channelStatus, channelHistory } from './status';
export { channelPeriodOf, isInPeriod, isProblemPath, transcriptChannels, transcriptMessageOf, transcriptOf } from './transcript';
export type { ChannelPeriod, PeriodCounts, TranscriptInput, TranscriptMessage, TranscriptParty } from './transcript';
export {
  arrivalFacts, arrivalFor, arrivalOf, clearRung, commitPull, deliveryPaths, DOOR_OF_HOST, firstAnswers, markRung, messagePath, PATH_HOSTS, TURN_STATES,
} from './arrival';
export type { Arrival, ArrivalFacts, PathEntry, PathHost, PathStep, TurnState } from './arrival';
export { markUnwoken, unwokenLine, unwokenMailOf } from './unwoken';
export type { UnwokenMail } from './unwoken';
export { takeFinished } from './finished';
export { checkQuarantine, explainMissingChannel, noteQuarantine, QUARANTINE_NOTICE_MS } from './quarantine';
export type { QuarantineRecord } from './quarantine';
export { addError } from './error-log';
export type { StatusInput, HistoryInput } from './status';
export { timerAction, timerReport, TIMER_ACTIONS } from './timer';
export type { TimerInput, TimerAction } from './timer';
export {
  authorizeMember, markStale, clearStale, resolveMemberByHostSession, memberInfosFor, bindHostSession,
} from './identity';
export { expireAwayMembers, isAwayTooLong, tidyState } from './away';
export {
  reservePaths, releasePaths, liveReservations, pruneReservations, isLiveReservation, holderAwaySince, reservationId, RESERVATION_LIFETIME_RULE,
} from './reservations';
export { judgeEdit, describeVerdict, isMemberOfChannel } from './edit-verdict';
export { nextReservationLapse, reservationLapse } from './reservation-lifetime';
export type { ReservationLapse } from './reservation-lifetime';
export { channelsAsJudged, listHeldReservations, releaseForPerson } from './reservation-admin';
export { COLLISION_WINDOW_MS, dueCollisions, noteCollisions } from './collisions';
export type { Collision, EditRecord } from './collisions';
export { describeShellWriter, noteShellWrite, patternsHeldByOthers, shownFileName } from './shell-writes';
export type { ShellWriter } from './shell-writes';
export type { HeldReservation, ReleaseTarget } from './reservation-admin';
export {
  presenceOf, isPresent, hasSessionEnded, membershipsOfMember, isProcessLive, isRecordedProcessOf, recordPresence, leavePresence, tidyPresence, forgetAwayStrangers, judgedChannels,
  PRESENCE_LEASE_MS, PRESENCE_RENEW_MS, LOCAL_PRESENCE_RENEW_MS, MAX_PRESENCE_LEASE_MS, UNCHANNELLED_AWAY_MS, JUDGE_BY_LEASE,
} from './presence';
export type { PresenceJudgement, PresenceClaim } from './presence';
export type { ReserveInput, ReleaseInput } from './reservations';
export type { EditVerdict } from './edit-verdict';
export type { Conflict } from './reservation-conflicts';
export { normalizePattern, patternsOverlap } from './globs';
export { dueReminders, hasReminderDue, markReminded, reminderText, requestsOf, pruneRequests } from './requests';
export type { RequestView } from './requests';
export { threadIdOf } from './compose';
export { LAST_SEEN_STEP_MS } from './session-links';
export {
  linkSession, findLinkedMember, needsLink, lastSeenByMember, sessionKey, pruneLinks,
} from './session-links';
export type { SessionRef, SessionKeyKind, LinkOutcome } from './session-links';
export { hasHookSessionEnded, isBoundElsewhere, isResumable, memberOfSession } from './hook-session';
export type { HookSession } from './hook-session';
export { deliverableMail, waitingMail } from './wait-notice';
export type { WaitingMail } from './wait-notice';
export {
  buildSessionArchive, commitSessionSave, resumeSession, deleteSession, buildArchiveContext,
} from './sessions';
export type { SaveSessionInput, ResumeSessionInput, DeleteSessionInput } from './sessions';
export { parseArchive, viewArchive, archiveListEntry } from './archives';
export type { ArchiveViewInput } from './archives';
export {
  frameMessage, frameBatch, parseFrames, neutralizeContent, peerLine, UNTRUSTED_NOTICE, BATCH_SEPARATOR,
} from './framing';
export type { FrameItem, ParsedFrame } from './framing';
export { channelEnvelopes, findChannelEnvelope, pendingFor, compareSendOrder } from './envelopes';
export { budgetRefusal } from './budgets';
export { backlogRefusal, jsonStringBytes } from './retention';
export { capabilitiesForMode, defaultStalePolicy } from './members';
export { normalizeChannelName, normalizeRole, findChannel, channelById, ownValue } from './validate';
export { FUTURE_SLACK_MS, formatIsoTime, isBelievableTime, isDateTime } from './times';
export {
  boardCounts, claimHolds, claimerAwaySince, findTask, framedTaskReply, framedTaskView, isClaimLive, isForMember, isReady, listedTasks, taskDigest, taskView, tasksOf,
  TASK_LIST_VIEWS,
} from './task-board';
export type { BoardCounts, ClaimHold, TaskListView } from './task-board';
export { expireClaims, pathHolderOf, wakeForTask } from './task-upkeep';
export { isRetiredId, retiredCount, takeRetiredTasks } from './task-retire';
export { parseTaskRecord } from './task-shape';
export {
  addTask, answerTask, askTask, cancelTask, claimTask, finishTask, listTasks, nextTask, releaseTask,
} from './tasks';
export type { ListTasksInput } from './tasks';
export type { AddTaskInput } from './task-input';
export {
  argCost, argvBudget, argvCost, CLAUDE_RESUME_ALLOWED_TOOLS, fittingPrefix, hostSessionIdProblem, isSpawnHost, MAX_HOST_SESSION_ID_CHARS,
  resumeArgs, SPAWN_HOSTS, countUtf8Bytes,
} from './spawn-argv';
export type { HostBinary, SpawnHost } from './spawn-argv';
export { planSpawn, spawnTargets, targetPending, SPAWN_RETRY_BASE_MS } from './spawn-plan';
export type { PlanContext, SpawnPlan, SpawnTarget } from './spawn-plan';
export { judgeByGone, findGoneHolders, isHolderList } from './gone-holders';
export type { HolderRef } from './gone-holders';
export { isInChannels, isPushMember, oldPluginMember } from './opencode-members';

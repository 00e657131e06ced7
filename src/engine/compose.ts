// Creating envelopes and putting them in queues: one place, so send and the
// engine's own notices build identical records.
import { enqueueEnvelope, takeSeq } from './envelopes';
import type { Channel, EngineCtx, Envelope, Member, MessageType, State } from './types';

/** The threading fields of a new envelope. */
export interface Thread {
  reply_to: string | null;
  root_message_id: string | null;
  hop_count: number;
  correlation_id: string;
  /** The thread a reply joins; null starts a new one, named after the send's first envelope. */
  thread_id: string | null;
}

/** The thread of an envelope: its own thread_id, else (records older than threads) its root, else itself. */
export function threadIdOf(envelope: Pick<Envelope, 'message_id' | 'root_message_id' | 'thread_id'>): string {
  return envelope.thread_id ?? envelope.root_message_id ?? envelope.message_id;
}

/** Creates one pending envelope per recipient, queues each, and returns them in recipient order. */
export function queueEnvelopes(
  state: State,
  channel: Channel,
  sender: { session_id: string; role: string },
  recipients: readonly Member[],
  body: { message_type: MessageType; content: string; thread: Thread },
  ctx: EngineCtx,
): Envelope[] {
  const timestamp = ctx.now();
  const seq = takeSeq(state);
  let threadId = body.thread.thread_id;
  return recipients.map((recipient) => {
    const messageId = ctx.newId('ocm_');
    threadId ??= messageId;
    const envelope: Envelope = {
      message_id: messageId,
      channel_id: channel.id,
      sender_session_id: sender.session_id,
      sender_role: sender.role,
      recipient_session_id: recipient.session_id,
      recipient_role: recipient.role,
      timestamp,
      message_type: body.message_type,
      content: body.content,
      reply_to: body.thread.reply_to,
      root_message_id: body.thread.root_message_id,
      hop_count: body.thread.hop_count,
      correlation_id: body.thread.correlation_id,
      thread_id: threadId,
      delivery_status: 'pending',
      delivered_at: null,
      attempts: 0,
      delivery_method: null,
      delivery_owner: null,
      seq,
    };
    state.messages[envelope.message_id] = envelope;
    enqueueEnvelope(state, recipient.session_id, envelope.message_id);
    return envelope;
  });
}

/** A thread that starts a new conversation. */
export function rootThread(ctx: EngineCtx): Thread {
  return { reply_to: null, root_message_id: null, hop_count: 0, correlation_id: ctx.newId('cor_'), thread_id: null };
}

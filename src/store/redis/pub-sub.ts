// Reading what a connection in pub/sub mode receives: the confirmation of a
// SUBSCRIBE, and the messages published on the channel, which answer no
// command. RESP3 sends both as pushes, RESP2 as arrays: the same items.
import { RespPush, type RespValue } from './resp';

/** A published message: ["message", channel, payload]. */
export interface PubSubMessage {
  channel: string;
  payload: string;
}

/** Whether SUBSCRIBE's answer confirms the subscription. */
export function isSubscribeConfirmation(answer: RespValue): boolean {
  const reply = answer instanceof RespPush ? answer.items : answer;
  return Array.isArray(reply) && textOfPubSub(reply[0]) === 'subscribe';
}

/** The message a reply delivers, or undefined when it is not one (then it answers a command). */
export function pubSubMessage(reply: RespValue): PubSubMessage | undefined {
  const items = reply instanceof RespPush ? reply.items : reply;
  if (!Array.isArray(items) || items.length !== 3 || textOfPubSub(items[0]) !== 'message') return undefined;
  return { channel: textOfPubSub(items[1]) ?? '', payload: textOfPubSub(items[2]) ?? '' };
}

function textOfPubSub(value: RespValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return undefined;
}

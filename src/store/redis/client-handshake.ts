// What a new connection says before any command of ours, and what the
// server's answers to it mean. HELLO 3 with the credentials goes out first:
// RESP3 where the server offers it. A server that does not know HELLO or
// RESP3 (NOPROTO, an unknown command, an ACL without it) gets AUTH instead
// and stays on RESP2. SELECT follows. This file only decides; the client
// (client.ts) sends, and lets the queued calls out once every step succeeded.
import type { RedisClientOptions } from './client-options';
import { RespError, type RespArg, type RespValue } from './resp';

/** Where HELLO's reply leaves the handshake: the protocol and the steps still to send, or the refusal of the credentials. */
export type AfterHello = { protocol: 2 | 3; steps: RespArg[][] } | { refusal: RespError };

/** The first command on every connection: HELLO 3 with the credentials. */
export function helloCommand(options: RedisClientOptions): RespArg[] {
  return ['HELLO', 3, 'AUTH', options.username ?? 'default', options.password];
}

/** Judges HELLO's reply: on RESP3 only SELECT may be left; a server without RESP3 also gets AUTH; any other error refused the credentials. */
export function afterHello(reply: RespValue, options: RedisClientOptions): AfterHello {
  const select: RespArg[][] = options.db !== 0 ? [['SELECT', options.db]] : [];
  if (!(reply instanceof RespError)) return { protocol: 3, steps: select };
  if (!isNoResp3(reply)) return { refusal: reply };
  const { username, password } = options;
  return { protocol: 2, steps: [username === undefined ? ['AUTH', password] : ['AUTH', username, password], ...select] };
}

// HELLO refused because the server lacks it or RESP3 (older than Redis 6, or
// an ACL without HELLO): the handshake falls back to AUTH on RESP2. A
// refusal of the credentials is not one of these.
function isNoResp3(reply: RespError): boolean {
  if (reply.prefix === 'NOPROTO') return true;
  if (reply.prefix === 'NOPERM') return /hello/i.test(reply.message);
  return reply.prefix === 'ERR' && /unknown command/i.test(reply.message);
}

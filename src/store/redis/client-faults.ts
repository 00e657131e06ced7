// The faults of our Redis client, each a StoreFault with a stable code whose
// message names the server and what to check (PROTOCOL.md "Authentication"):
// error replies, socket errors, timeouts and closed connections, judged by
// the phase the connection was in.
import { StoreFault, type StoreFaultCode } from '../../files/faults';
import type { RedisClientOptions } from './client-options';
import type { RespError } from './resp';

/** Where a connection stands: opened on first use, ready after the handshake. */
export type Phase = 'idle' | 'waiting' | 'connecting' | 'handshake' | 'ready' | 'closed';

/** The connection as a fault is judged: its phase, and what its socket has shown so far. */
export interface ConnectionMoment {
  phase: Phase;
  /** The TCP part is up (TLS may still be negotiating). */
  isTcpConnected: boolean;
  /** The first bytes looked like TLS (a plain-text client at a TLS port). */
  sawTlsBytes: boolean;
}

/**
 * The type of key each single-key read of the store works on. A WRONGTYPE
 * reply to one of these wrote nothing, so it is store_key_wrong_type; one to
 * a script or a write may come after other writes, and stays state_unwritable.
 */
export const KEY_TYPE_READ_BY: Readonly<Record<string, string>> = {
  GET: 'string', HGET: 'hash', HGETALL: 'hash', LRANGE: 'list', XRANGE: 'stream', XREVRANGE: 'stream',
};

/** TLS errors that mean the server's certificate was not accepted. */
const CERT_ERRORS = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_UNTRUSTED', 'CERT_REVOKED', 'CERT_SIGNATURE_FAILURE', 'HOSTNAME_MISMATCH',
]);

export class ClientFaults {
  /** `host:port`, as messages name the server. */
  readonly where: string;
  private readonly options: RedisClientOptions;
  private readonly moment: () => ConnectionMoment;

  constructor(options: RedisClientOptions, where: string, moment: () => ConnectionMoment) {
    this.options = options;
    this.where = where;
    this.moment = moment;
  }

  fault(code: StoreFaultCode, what: string, cause?: unknown): StoreFault {
    return new StoreFault(code, `The Redis store at ${this.where} ${what}`, cause, true);
  }

  /** The fault an error reply stands for: auth, permission, or the server refusing to do it. */
  faultForReply(reply: RespError, commandName: string, key?: string): StoreFault {
    const user = this.options.username === undefined ? 'the default user' : `ACL user ${JSON.stringify(this.options.username)}`;
    switch (reply.prefix) {
      case 'WRONGPASS':
        return this.fault('store_auth_failed', `refused the credentials of ${user} (${reply.message}): check the user in the URL and OPENCOMMS_STORE_PASSWORD(_FILE), and that the user is enabled on the server`);
      case 'NOAUTH':
        return this.fault('store_auth_failed', `requires authentication before ${commandName} (${reply.message}): check OPENCOMMS_STORE_PASSWORD(_FILE)`);
      // A server that restarted answers LOADING until its data is back in memory, and a replica
      // whose primary is gone MASTERDOWN: it cannot serve yet, as if it were not there.
      case 'LOADING':
      case 'MASTERDOWN':
        return this.fault('store_unreachable', `cannot serve ${commandName} yet (${reply.message.slice(0, 200)}): it is still starting or has lost its primary; try again in a moment`);
      case 'NOPERM': {
        const hint = this.options.permissionHint ? ` Grant that user ${this.options.permissionHint}.` : '';
        return this.fault('store_forbidden', `does not let ${user} run ${commandName} on these keys (${reply.message}).${hint}`);
      }
      default:
        // `key` is the command's first argument: the key, for the reads listed.
        if (reply.prefix === 'WRONGTYPE' && KEY_TYPE_READ_BY[commandName.toUpperCase()] !== undefined) return this.wrongTypeFault(key, commandName);
        if (/^ERR invalid password|^ERR AUTH .*without any password configured/i.test(reply.message)) {
          return this.fault('store_auth_failed', `refused the credentials of ${user} (${reply.message}): check OPENCOMMS_STORE_PASSWORD(_FILE) and the server's ACL`);
        }
        return this.fault('state_unwritable', `refused ${commandName}: ${reply.message.slice(0, 300)}. Check the server (memory limit, read-only replica, persistence errors) and try again`);
    }
  }

  /**
   * A key of the project holds another type than the store keeps there
   * (`expected`, by default the type `commandName` works on), and `found`
   * when it could be told. Nothing was written: a commit checks every key
   * before its first write.
   */
  wrongTypeFault(key: string | undefined, commandName: string, expected = KEY_TYPE_READ_BY[commandName.toUpperCase()], found?: string): StoreFault {
    const which = key ?? 'a key of this project';
    const holding = found === undefined ? 'a value of another type' : `a ${found}`;
    const keeps = expected === undefined ? '' : ` where OpenComms keeps a ${expected}`;
    const inspect = found === undefined && key !== undefined ? ` (TYPE ${key} shows what it holds)` : '';
    return this.fault('store_key_wrong_type',
      `has ${which} holding ${holding}${keeps}${inspect}, written by a hand edit, another tool or a bad restore; so ${commandName} was refused and nothing was written. Restore that key from a backup, or delete it (redis-cli DEL ${key ?? '<key>'}) if what it holds is not needed, then try again`);
  }

  /** Plain text to anything but loopback: refused before a byte is sent. */
  // `addresses` is what the name resolved to (undefined for an address).
  offMachineFault(addresses: string[] | undefined): StoreFault {
    const { host } = this.options;
    const what = addresses === undefined ? `${host} is not a loopback address`
      : addresses.length === 0 ? `${host} resolves to no address`
        : `${host} resolves to ${addresses.join(', ')}, not only to loopback`;
    return this.fault('store_tls_required',
      `was not contacted: ${what}, and redis:// (plain text: the password and every message in clear) goes only to this machine (127.0.0.0/8, ::1). Name 127.0.0.1 or ::1 in the URL for a server on this machine, or use rediss://… with TLS for one elsewhere`);
  }

  tlsPortFault(): StoreFault {
    return this.fault('store_tls_required', 'answered with TLS: that port expects TLS, so use rediss://… (with OPENCOMMS_STORE_CA for a private CA)');
  }

  // Redis answers anything on its plain port, if only with an error; a
  // connection dropped before AUTH got any answer is what a TLS port does
  // to a plain-text client.
  plainAtTlsPortFault(): StoreFault {
    return this.fault('store_tls_required', 'closed the connection without answering AUTH, as a TLS port does with plain text: use rediss://… (with OPENCOMMS_STORE_CA for a private CA); if that port is not a TLS port, check the server log');
  }

  faultForSocketError(err: NodeJS.ErrnoException): StoreFault {
    const code = err.code ?? '';
    if (this.moment().phase === 'handshake' && !this.options.isTls && (code === 'ECONNRESET' || code === 'EPIPE')) return this.plainAtTlsPortFault();
    if (CERT_ERRORS.has(code)) {
      return this.fault('store_tls_failed', `presented a certificate that could not be verified (${code}): if it is signed by a private CA, set OPENCOMMS_STORE_CA to that CA's PEM file; check that the certificate names ${this.options.host} and has not expired`, err);
    }
    if (this.options.isTls && this.moment().phase === 'connecting' && (code.startsWith('ERR_SSL') || code === 'ECONNRESET' || code === 'EPROTO')) {
      return this.fault('store_tls_failed', `did not complete a TLS handshake (${code}): check that the port is the server's tls-port (a plain port needs redis:// on loopback)`, err);
    }
    const why = code === 'ECONNREFUSED' ? 'refused the connection: check that redis-server is running and listening on that host and port'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? `cannot be found: check the host name ${JSON.stringify(this.options.host)} in OPENCOMMS_STORE`
        : `cannot be reached (${code || err.message}): check that the server is up and the network path to it`;
    return this.fault('store_unreachable', why, err);
  }

  faultForTimeout(): StoreFault {
    const ms = this.options.timeoutMs;
    if (this.moment().phase === 'connecting' && this.moment().isTcpConnected) {
      // TCP is up but no TLS handshake came back: most likely a plain-text port.
      return this.fault('store_tls_failed', `accepted the connection but completed no TLS handshake within ${ms} ms: check that the port is the server's tls-port (a plain port needs redis:// on loopback)`);
    }
    return this.fault('store_unreachable', `did not answer within ${ms} ms: check that the server is up and not overloaded, and the network path to it (firewall, VPN)`);
  }

  faultForClose(): StoreFault {
    if (this.moment().sawTlsBytes) return this.tlsPortFault();
    if (this.moment().phase === 'handshake' && !this.options.isTls) return this.plainAtTlsPortFault();
    return this.fault('store_unreachable', 'closed the connection: check that the server is running (a command in flight may or may not have been applied)');
  }
}

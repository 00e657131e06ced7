// Where a Redis client's socket goes: TLS that verifies the server, or plain
// text only to this machine, judged on the addresses the connection will use
// (PROTOCOL.md "Authentication").
import type { LookupFunction, Socket } from 'node:net';
import type { StoreFault } from '../../files/faults';
import type { ClientFaults } from './client-faults';
import type { RedisClientOptions, ResolvedAddress } from './client-options';
import { isLoopbackAddress } from './url';

/** What opening a socket reports to: a socket to attach, or the fault that refused it. */
export interface SocketTarget {
  /** Still wanted after the name lookup: not closed, timed out or reopened meanwhile. */
  isCurrent(): boolean;
  attach(socket: Socket): void;
  refuse(fault: StoreFault): void;
  /** The name lookup failed (a socket error, for the fault's wording). */
  lookupFailed(err: NodeJS.ErrnoException): void;
}

/** Opens the socket for `options` and hands it (or the refusal) to `target`, at once or after the lookup. */
export function openSocket(options: RedisClientOptions, faults: ClientFaults, target: SocketTarget): void {
  const { host, port } = options;
  // Required here, not at the top: node:net, node:tls and node:dns cost
  // start-up time, and most processes never open a Redis connection.
  const net = require('node:net') as typeof import('node:net');
  if (options.isTls) {
    target.attach((require('node:tls') as typeof import('node:tls')).connect({
      host,
      port,
      // SNI carries names only; an IP address is checked against the certificate's IP entries.
      servername: net.isIP(host) === 0 ? host : undefined,
      ca: options.ca === undefined ? undefined : [options.ca],
      minVersion: 'TLSv1.2',
      rejectUnauthorized: true,
    }));
    return;
  }
  // Plain text carries the password and every message in clear, so it goes
  // only to loopback, judged on the addresses the connection will use, not
  // on the name: a resolver may answer anything for a *.localhost name (or
  // for localhost itself). A name is resolved once, here, and the socket is
  // given only those addresses, so a second answer cannot differ.
  if (net.isIP(host) !== 0) {
    if (isLoopbackAddress(host)) target.attach(net.connect({ host, port }));
    else target.refuse(faults.offMachineFault(undefined));
    return;
  }
  (options.lookup ?? lookupAll)(host).then(
    (found) => {
      if (!target.isCurrent()) return;
      if (found.length === 0 || !found.every((a) => isLoopbackAddress(a.address))) {
        target.refuse(faults.offMachineFault(found.map((a) => a.address)));
        return;
      }
      target.attach(net.connect({ host, port, lookup: pinnedLookup(found) }));
    },
    (err: NodeJS.ErrnoException) => {
      if (target.isCurrent()) target.lookupFailed(err);
    },
  );
}

// The system resolver: every address of the name, in its order.
function lookupAll(host: string): Promise<readonly ResolvedAddress[]> {
  return (require('node:dns') as typeof import('node:dns')).promises.lookup(host, { all: true, verbatim: true });
}

// net.connect's lookup hook, answering only the addresses already resolved and
// judged (all of them, so a name with both ::1 and 127.0.0.1 still reaches a
// server listening on either).
function pinnedLookup(found: readonly ResolvedAddress[]): LookupFunction {
  return (_host, options, callback) => {
    if (options.all) callback(null, found.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, found[0]!.address, found[0]!.family);
  };
}

// What a Redis client is told: the server, the credentials, the bound on
// every call, and the few hooks tests replace (jitter, name resolution).

export interface RedisClientOptions {
  host: string;
  port: number;
  isTls: boolean;
  /** PEM CA bundle for a private CA; the system roots otherwise. Verification is never disabled. */
  ca?: string;
  /** The ACL user; Redis's `default` user when undefined. */
  username?: string;
  password: string;
  db: number;
  /** Bound on each call, from the moment it is made to its reply. */
  timeoutMs: number;
  maxReplyBytes?: number;
  /** What to grant a user that gets NOPERM (the key pattern and commands this caller needs). */
  permissionHint?: string;
  /** Jitter source; Math.random by default (tests pass a fixed one). */
  random?: () => number;
  /** How a host name is resolved for plain text; the system resolver by default (tests pass their own). */
  lookup?: HostLookup;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to, as node:dns `lookup` with `all: true` answers. */
export type HostLookup = (host: string) => Promise<readonly ResolvedAddress[]>;

// A Redis project for the sender bursts of ../burst.ts: the selection the
// test process opens it with, and the environment its writer processes get.
import type { StoreSelection } from '../../../src/store';
import type { RedisStoreConfig } from '../../../src/store/redis/config';
import { configFor, USERS } from './server';

export function burstOnRedis(port: number, projectId: string): { config: RedisStoreConfig; selection: StoreSelection; env: Record<string, string> } {
  const config = configFor(port, projectId);
  return {
    config,
    selection: { kind: 'redis', config },
    env: {
      OPENCOMMS_STORE: `redis://${USERS.agent.name}@127.0.0.1:${port}/0`,
      OPENCOMMS_STORE_PASSWORD: USERS.agent.password,
      OPENCOMMS_STORE_PASSWORD_FILE: '',
      OPENCOMMS_PROJECT_ID: projectId,
    },
  };
}

// The door to copying a project's state from one store to the other
// (`opencomms migrate`): the one room that knows both stores.
export { MigrationRefused, readFileProject, refuseHeldFileTarget, writeFileProject } from './project-copy';
export type { ProjectCopy } from './project-copy';
export { redisSideOf } from './redis-side';
export type { RedisProjectSide } from './redis-side';

// What a member id may look like: also a file name (pins/<id>.json), so no
// path characters. A leaf module: the start-up path checks ids without
// loading the store.
const MEMBER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Whether `id` is a valid member id (1–64 chars, safe as a file name). */
export function isValidMemberId(id: unknown): id is string {
  return typeof id === 'string' && MEMBER_ID_PATTERN.test(id);
}

// Its own leaf beside types.ts (which re-exports it), so that file stays under its size limit.
/** A review request still waiting for answers (our addition). */
export interface OpenRequest {
  request_id: string;
  thread_id: string;
  from: string;
  from_role: string;
  /** Recipients who have not answered in the thread yet. */
  to: string[];
  at: number;
  /** Recipients whose Stop hook has brought it up already. */
  reminded: string[];
}

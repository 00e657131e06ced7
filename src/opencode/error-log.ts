// How the plugin words a failure it records in state.errors (engine addError).

/** A short, single-line description of a failure, safe to persist. */
export function describeFailure(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : typeof err === 'string' ? err : JSON.stringify(err) ?? String(err);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}...` : line;
}

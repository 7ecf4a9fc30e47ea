// Database errors every writer needs to tell apart, whatever table it writes.

/** True when D1 refused a write for a unique index (the cause chain is searched: D1 wraps it). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (/UNIQUE constraint failed/i.test(e.message)) return true;
  }
  return false;
}

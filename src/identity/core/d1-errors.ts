/** D1 reports a unique-index conflict only in the error message. */
export function isUniqueViolation(err: unknown): boolean {
  return String((err as Error).message).includes("UNIQUE");
}

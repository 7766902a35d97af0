import { driverMessage } from "../../lib/sql";

/**
 * D1 reports a unique-index conflict only in the error message; drizzle wraps the error of a statement it
 * ran ("Failed query: …", the driver's error its `cause`), so the driver's own message is read.
 */
export function isUniqueViolation(err: unknown): boolean {
  return driverMessage(err).includes("UNIQUE");
}

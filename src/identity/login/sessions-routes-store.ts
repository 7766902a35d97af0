/** The session routes' writes that go in one batch. */
import { batch } from "../../lib/sql";
import { revokeAllSessionsStatement } from "./sessions-store";

/** Ends every session of the account (all but `keepId` when given) and records `event`: one batch. */
export async function revokeAllSessionsRecorded(
  db: D1Database,
  userId: string,
  reason: string,
  keepId: string | undefined,
  event: D1PreparedStatement,
): Promise<void> {
  await batch(db, [revokeAllSessionsStatement(db, userId, reason, keepId), event]);
}

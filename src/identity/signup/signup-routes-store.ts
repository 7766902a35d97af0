/** The signup routes' multi-step writes, each one D1 batch (all or nothing). */
import { batch } from "../../lib/sql";
import { revokeAllSessionsStatement } from "../login/sessions-store";
import { activationStatements, setPasswordStatements } from "./accounts-store";

/** Activates the account with its proven address together with `session` (its first session's statements). */
export async function activateWithSession(
  db: D1Database,
  userId: string,
  address: string,
  session: D1PreparedStatement[],
): Promise<void> {
  await batch(db, [...activationStatements(db, userId, address), ...session]);
}

/** Sets the new password, ends every session but `keepSessionId` and records `event`. */
export async function changePasswordRecorded(
  db: D1Database,
  userId: string,
  passwordHash: string,
  keepSessionId: string,
  event: D1PreparedStatement,
): Promise<void> {
  await batch(db, [
    ...setPasswordStatements(db, userId, passwordHash),
    revokeAllSessionsStatement(db, userId, "password_change", keepSessionId),
    event,
  ]);
}

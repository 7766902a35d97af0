/** Refresh: a token is rotated by its family's Durable Object; a reused token revokes every session. */

import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import type { RotateOutcome } from "./refresh-family";
import { refreshTokenFamily } from "./refresh-tokens";
import type { IssuedSession } from "./sessions";

/**
 * Rotates `token`: the session it continues, or null when the caller must sign in again (no token, a
 * malformed, unknown, expired or reused one). A family that cannot be reached is 503 REFRESH_UNAVAILABLE,
 * never null, so a passing outage does not log anyone out; a locked or disabled account is 423 or 403.
 */
export async function rotateRefreshToken(
  env: Env,
  token: string | undefined,
  client: { ip: string; userAgent: string | null; requestId?: string },
): Promise<IssuedSession | null> {
  const familyId = token ? refreshTokenFamily(token) : null;
  if (!token || !familyId) return null;
  let outcome: RotateOutcome;
  try {
    const stub = env.REFRESH_FAMILIES.get(env.REFRESH_FAMILIES.idFromName(familyId));
    outcome = await stub.rotate({ token, familyId, ...client });
  } catch (err) {
    fail("REFRESH_UNAVAILABLE", {
      detail: "The session could not be checked; retry shortly.",
      headers: { "Retry-After": "1" },
      reason: (err as Error).message,
    });
  }
  switch (outcome.kind) {
    case "failed":
      return null;
    case "locked":
      return fail("ACCOUNT_LOCKED", "The account is locked.");
    case "forbidden":
      return fail("FORBIDDEN", "The account is disabled.");
    case "ok":
      return outcome;
  }
}

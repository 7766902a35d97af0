/**
 * The platform operator console's gate (spec: Authentication 5). Every `/v1/platform/*` route needs the
 * edge's `X-Platform-Operator`: `operator_read` reads, `operator_admin` reads and writes (lifecycle,
 * purge, platform themes). No capability, or a read capability on a write, is 403: `FORBIDDEN` on the
 * sites console, `PLATFORM_FORBIDDEN` on platform themes (the spec's codes). A service caller without
 * the header is refused like anyone else: the console acts for a person, who is audited.
 */
import type { Context } from "hono";
import { readEdgeIdentity } from "../../lib/edge";
import type { SitesAppEnv } from "../core/app-env";
import { fail } from "../errors";

export type OperatorAccess = "read" | "write";

export interface Operator {
  capability: "operator_read" | "operator_admin";
  /** The acting person (`X-User-Id`), for the audit trail; null only if the edge sent none. */
  userId: string | null;
}

export function requireOperator(
  c: Context<SitesAppEnv>,
  access: OperatorAccess,
  code: "FORBIDDEN" | "PLATFORM_FORBIDDEN" = "FORBIDDEN",
): Operator {
  const identity = readEdgeIdentity(c.req.raw.headers);
  const capability = identity.operator;
  if (!capability) fail(code, "This needs a platform operator capability.");
  if (access === "write" && capability !== "operator_admin") {
    fail(code, "This needs the operator_admin capability; operator_read only reads.");
  }
  return { capability, userId: identity.userId };
}

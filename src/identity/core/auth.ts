import { createMiddleware } from "hono/factory";
import { createLocalJWKSet, jwtVerify } from "jose";
import { bearerRefusal, expiredJwt } from "../../lib/bearer";
import { sessionIsLive } from "../login/sessions-store";
import { jwks } from "../login/tokens";
import { requireSsoReach, walledOrg } from "../sso/org-wall";
import { AUDIENCE } from "./config";
import type { AppEnv } from "./context";
import { fromBase64url } from "./crypto";

const REQUIRED = "A valid Bearer access token is required.";

/** Rejects tokens whose header is not JSON naming EdDSA before they reach the JWS verifier. */
function headerLooksValid(token: string): boolean {
  try {
    const header = JSON.parse(new TextDecoder().decode(fromBase64url(token.split(".")[0]!))) as {
      alg?: unknown;
    };
    return header !== null && typeof header === "object" && header.alg === "EdDSA";
  } catch {
    return false;
  }
}

/**
 * Bearer authentication: the caller's identity comes only from a verified access token whose session
 * is still live in D1, so a revoked session stops working on identity at once.
 */
const requireBearer = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("authorization");
  if (header === undefined) throw bearerRefusal("missing", REQUIRED);
  const m = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(header);
  if (!m || !headerLooksValid(m[1]!)) throw bearerRefusal("invalid", REQUIRED);
  let sub: string;
  let sid: string;
  try {
    const { payload, protectedHeader } = await jwtVerify(m[1]!, createLocalJWKSet(await jwks(c.env)), {
      issuer: c.env.ISSUER,
      audience: AUDIENCE,
      algorithms: ["EdDSA"],
    });
    // Only a staff session's token: never an MCP agent's (`kind: "agent"`, `typ: at+jwt`, issue 37), even
    // if one ever carried this audience.
    if (payload.kind !== "staff" || protectedHeader.typ?.toLowerCase() === "at+jwt") throw new Error("kind");
    if (typeof payload.sub !== "string" || typeof payload.sid !== "string") throw new Error("claims");
    sub = payload.sub;
    sid = payload.sid;
  } catch (err) {
    throw bearerRefusal(expiredJwt(err) ? "expired" : "invalid", REQUIRED);
  }
  if (!(await sessionIsLive(c.env.DB, sub, sid))) throw bearerRefusal("invalid", REQUIRED);
  c.set("auth", { userId: sub, sessionId: sid });
  await next();
});

/**
 * Enforced SSO on the organization's member, invitation, transfer and event routes (sso/org-wall.ts);
 * runs after the Bearer check, other paths pass untouched.
 */
const ssoOrgWall = createMiddleware<AppEnv>(async (c, next) => {
  const walled = walledOrg(new URL(c.req.url).pathname);
  if (walled) await requireSsoReach(c.env, c.get("services"), c.get("auth"), walled.orgId, walled.notFound);
  await next();
});

/**
 * A Bearer route's documented security (`bearerAuth`, the spec's scheme) and its enforcing middleware
 * from one value, spread into `createRoute` (as content's `keyAuth`): the OpenAPI document cannot
 * promise a Bearer check the route does not run, and the security sweep
 * (test/identity/bearer-sweep.security.test.ts) finds every such route from the document.
 */
export const bearerAuth = {
  security: [{ bearerAuth: [] }],
  // Then enforced SSO on the organization's member, invitation, transfer and event routes (docs/decisions/grant-endings.md).
  middleware: [requireBearer, ssoOrgWall],
};

/**
 * Authentication of the dashboard routes (`/api/v1/sites/{site_id}/posts…`, media, categories, tags,
 * authors, leads; issue 34): a signed-in staff person, as the gateway's signed edge headers describe them,
 * becomes the same `KeyContext` an API key does, with `actor: {kind: "person"}`, so the handlers and service
 * functions of the `/v1` key routes serve both (one implementation, two ways in).
 *
 * Check order: session (401) -> site (the opaque 404 of a missing, deleted or archived site, or one the
 * person holds nothing on, as key administration answers it) -> permission (403 FORBIDDEN with
 * `details.missing`) -> quota (429, the same buckets and headers as a key's, in the gate of the pseudo key
 * `person:<user>:<site>`, so writes, lead reads and idempotency reservations are per person and site).
 *
 * Reads decide by the edge headers, which the gateway may cache for 30 s (a removed member may read for that
 * long). A write (any method but GET and HEAD) asks identity once, uncached (`IdentityRpc.siteGrant`): the
 * session's liveness, the memberships of the site's organization and of the site, and the display name (the
 * byline), so a removed member's next write is the missing site's 404, a demoted one's 403 naming what the new
 * role lacks, and a signed-out session's 401, at once.
 */
import { bearerRefusal } from "../../lib/bearer";
import type { EdgeIdentity } from "../../lib/edge";
import type { SiteGrant, SiteGrantQuery } from "../../lib/rpc";
import { type SitePermission, scopesOfPermissions } from "../../lib/site-permissions";
import type { Env } from "../core/bindings";
import { fail } from "../errors";
import { takeKeyQuota } from "./api-key";
import { type KeyContext, siteAddressOf } from "./key-context";
import { type Regrant, staffAccess } from "./site-staff";

/** What a dashboard route requires of the person: one permission of `anyOf`, and its quota. */
export interface PersonRequirement {
  /** The person needs one of these (the first is named as missing when they hold none). */
  anyOf: readonly [SitePermission, ...SitePermission[]];
  /** The gate's write bucket, or the read quota (`leads:read` adds the lead-read bucket). */
  quota: "read" | "write";
  /** The handler takes the write quota itself, with its idempotency reservation (`POST …/posts`). */
  quotaInHandler?: true;
}

/** What person authentication reads of the request: plain facts the HTTP layer gathers. */
export interface PersonRequest {
  readonly identity: EdgeIdentity;
  readonly siteId: string;
  readonly clientIp: string;
  /** The primary database: a membership's end and a site's state are never read from a replica. */
  readonly primaryDb: D1Database | undefined;
  readonly addHeaders: (headers: Record<string, string>) => void;
  /** A write (any method but GET and HEAD): the grant is read afresh from identity. */
  readonly write: boolean;
}

/** What person authentication asks identity: on a write, the grant (one RPC); a read asks nothing. */
export interface PersonDirectory {
  /** The person's grant on the site now (`IdentityRpc.siteGrant`), its display name already normalized. */
  siteGrant(query: SiteGrantQuery): Promise<SiteGrant | null>;
}

/** The gate and idempotency scope of a person on a site: one per (person, site). */
function personKeyId(userId: string, siteId: string): string {
  return `person:${userId}:${siteId}`;
}

/**
 * A write's regrant: the person's memberships of the site as identity holds them now, in place of the edge
 * headers'; 401 when the session or the account ended. `named` receives the display name the same call read.
 */
function regrantOf(
  identity: EdgeIdentity,
  directory: PersonDirectory,
  named: (name: string | null) => void,
): Regrant {
  return async (userId, site) => {
    const grant = await directory.siteGrant({
      user_id: userId,
      session_id: identity.sessionId ?? "",
      site_id: site.id,
      org_id: site.org_id,
    });
    if (!grant?.session_active) throw bearerRefusal("invalid", "The session has ended; sign in again.");
    named(grant.display_name);
    return { ...identity, orgMemberships: grant.org_memberships, siteMemberships: grant.site_memberships };
  };
}

/**
 * The person of a dashboard request, checked against the requirement, with its quota taken: the request's
 * KeyContext. `authorName` is the person's display name, which came with a write's grant (one RPC); a read
 * stamps no byline, so it asks identity nothing and carries none.
 */
export async function authenticatePerson(
  env: Env,
  request: PersonRequest,
  requirement: PersonRequirement,
  directory: PersonDirectory,
): Promise<KeyContext> {
  const db = request.primaryDb ?? env.DB;
  // A write's byline comes with its grant (one RPC).
  const granted: { name?: string | null } = {};
  const regrant = request.write
    ? regrantOf(request.identity, directory, (name) => {
        granted.name = name;
      })
    : undefined;
  const { userId, site, permissions } = await staffAccess(request.identity, db, request.siteId, regrant);
  if (!requirement.anyOf.some((p) => permissions.has(p))) {
    const missing = requirement.anyOf[0];
    fail("FORBIDDEN", {
      detail: `This operation requires the permission ${requirement.anyOf.join(" or ")} on the site.`,
      details: { missing, ...(requirement.anyOf.length > 1 ? { any_of: requirement.anyOf } : {}) },
    });
  }
  const keyId = personKeyId(userId, site.id);
  const scopes = scopesOfPermissions(permissions);
  const leads = requirement.anyOf.includes("leads:read");
  await takeKeyQuota(env, request, keyId, "secret", {
    quota: requirement.quota,
    ...(requirement.quotaInHandler ? { quotaInHandler: true } : {}),
    scopes: leads ? ["leads:read"] : [],
  });
  return {
    actor: { kind: "person", userId, permissions },
    keyId,
    siteId: site.id,
    site: siteAddressOf(site),
    kind: "secret",
    scopes,
    createdBy: userId,
    authorName: granted.name ?? null,
    contentVersion: site.content_version,
  };
}

/**
 * `GET /v1/auth/me` (beyond the spec, issue 23): what a dashboard's first screen shows, in one call: the
 * account (id, primary address, the factors present, created), its organizations with names and the
 * caller's role, and its site memberships. One D1 batch, so the answer is one consistent reading. Each
 * list is bounded (MAX_LISTED, as `GET /auth/orgs` is); `*_truncated` says when more exist.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { orgMemberships, orgs as orgsTable, siteMemberships, users } from "../../../schema/identity";
import { problemResponses } from "../../lib/app";
import type { Computed, Row } from "../../lib/rows";
import { bearerAuth } from "../core/auth";
import type { AppEnv } from "../core/context";
import { jsonResponse } from "../core/schemas";
import { fail } from "../errors";

export const MAX_LISTED = 500;

const FACTORS = ["password", "totp", "passkey", "phone", "recovery_codes"] as const;

const MeSchema = z
  .object({
    id: z.string(),
    email: z.string().nullable().openapi({ description: "The primary address" }),
    created_at: z.string(),
    factors: z.array(z.enum(FACTORS)).openapi({
      description:
        "The sign-in factors present: a password, a confirmed TOTP, passkeys, a verified phone, unused recovery codes",
    }),
    organizations: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        slug: z.string(),
        role: z.string(),
        owner: z.boolean().openapi({ description: "The role is the structural owner role (is_system)" }),
      }),
    ),
    organizations_truncated: z.boolean(),
    site_memberships: z.array(
      z.object({
        site_id: z.string(),
        org_id: z.string().nullable(),
        role: z.string(),
        owner: z.boolean(),
      }),
    ),
    site_memberships_truncated: z.boolean(),
  })
  .openapi("Me");

type Me = z.infer<typeof MeSchema>;

type AccountRow = Row<typeof users, "id" | "created_at"> &
  Computed<{
    has_password: number;
    email: string | null;
    totp: number;
    passkeys: number;
    phones: number;
    recovery: number;
  }>;

function factorsOf(a: AccountRow): Me["factors"] {
  const present = {
    password: a.has_password === 1,
    totp: a.totp > 0,
    passkey: a.passkeys > 0,
    phone: a.phones > 0,
    recovery_codes: a.recovery > 0,
  };
  return FACTORS.filter((f) => present[f]);
}

export async function readMe(db: D1Database, userId: string): Promise<Me | null> {
  const [account, orgs, sites] = await db.batch([
    db
      .prepare(
        `SELECT u.id, u.created_at, u.password_hash IS NOT NULL AS has_password,
           (SELECT address FROM email_addresses WHERE user_id = u.id AND is_primary = 1) AS email,
           (SELECT COUNT(*) FROM totp_factors WHERE user_id = u.id AND confirmed_at IS NOT NULL) AS totp,
           (SELECT COUNT(*) FROM passkeys WHERE user_id = u.id) AS passkeys,
           (SELECT COUNT(*) FROM phones WHERE user_id = u.id AND verified_at IS NOT NULL) AS phones,
           (SELECT COUNT(*) FROM recovery_codes WHERE user_id = u.id AND used_at IS NULL) AS recovery
         FROM users u WHERE u.id = ?1`,
      )
      .bind(userId),
    db
      .prepare(
        `SELECT o.id, o.name, o.slug, m.role, EXISTS (SELECT 1 FROM roles r WHERE r.scope = 'org'
           AND r.is_system = 1 AND r.slug = m.role AND (r.org_id IS NULL OR r.org_id = m.org_id)) AS owner
         FROM org_memberships m JOIN orgs o ON o.id = m.org_id
         WHERE m.user_id = ?1 ORDER BY o.created_at, o.id LIMIT ?2`,
      )
      .bind(userId, MAX_LISTED + 1),
    db
      .prepare(
        `SELECT m.site_id, m.org_id, m.role, EXISTS (SELECT 1 FROM roles r WHERE r.scope = 'site'
           AND r.is_system = 1 AND r.slug = m.role AND (r.org_id IS NULL OR r.org_id = m.org_id)) AS owner
         FROM site_memberships m WHERE m.user_id = ?1 ORDER BY m.created_at, m.site_id LIMIT ?2`,
      )
      .bind(userId, MAX_LISTED + 1),
  ]);
  const a = account?.results[0] as AccountRow | undefined;
  if (!a) return null;
  type Org = Row<typeof orgsTable, "id" | "name" | "slug"> &
    Row<typeof orgMemberships, "role"> &
    Computed<{ owner: number }>;
  type Site = Row<typeof siteMemberships, "site_id" | "org_id" | "role"> & Computed<{ owner: number }>;
  const orgRows = (orgs?.results ?? []) as Org[];
  const siteRows = (sites?.results ?? []) as Site[];
  return {
    id: a.id,
    email: a.email,
    created_at: a.created_at,
    factors: factorsOf(a),
    organizations: orgRows.slice(0, MAX_LISTED).map((o) => ({ ...o, owner: o.owner === 1 })),
    organizations_truncated: orgRows.length > MAX_LISTED,
    site_memberships: siteRows.slice(0, MAX_LISTED).map((s) => ({ ...s, owner: s.owner === 1 })),
    site_memberships_truncated: siteRows.length > MAX_LISTED,
  };
}

const getMeRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/me",
  tags: ["Account"],
  summary: "The caller's account, organizations and site memberships (a dashboard's first screen)",
  description: "Beyond the spec (issue 23).",
  ...bearerAuth,
  responses: {
    200: jsonResponse("The caller", MeSchema),
    ...problemResponses({ 401: "UNAUTHORIZED" }),
  },
});

export function registerMeRoute(app: OpenAPIHono<AppEnv>) {
  app.openapi(getMeRoute, async (c) => {
    const me = await readMe(c.env.DB, c.get("auth").userId);
    if (!me) fail("UNAUTHORIZED", "The account no longer exists.");
    return c.json(me, 200);
  });
}

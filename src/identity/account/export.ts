/**
 * Taking your data (issue 24 §3): one JSON document of everything the caller's account holds in identity,
 * read in one D1 batch (one consistent snapshot). Only what describes the account to its owner: never a
 * password hash, TOTP secret, recovery-code hash, passkey public key or credential id, refresh-token
 * hash, code, or invitation token hash. Site names come from the sites registry (a site it does not name
 * keeps `name: null`).
 */
import { z } from "@hono/zod-openapi";
import { rpc, type SitesRpc } from "../../lib/rpc";
import type { Env } from "../core/worker-env";

type Row = Record<string, unknown>;

const s = z.string();
const sn = z.string().nullable();
/** The document's shape (OpenAPI `AccountExport`). */
export const AccountExportSchema = z
  .object({
    format: z.literal("site-platform.account-export/1"),
    exported_at: s,
    profile: z.object({
      id: s,
      display_name: sn,
      status: s,
      password_set: z.boolean(),
      created_at: s,
      updated_at: s,
    }),
    email_addresses: z.array(
      z.object({ id: s, address: s, is_primary: z.boolean(), verified_at: sn, usable_at: sn, created_at: s }),
    ),
    phone: z.object({ e164: s, verified_at: sn, created_at: s }).nullable(),
    factors: z.array(z.object({ kind: z.enum(["totp", "sms", "passkey"]), confirmed_at: sn, created_at: s })),
    recovery_codes: z.object({ total: z.number(), unused: z.number(), generated_at: sn }).nullable(),
    passkeys: z.array(
      z.object({ id: s, name: sn, discoverable: z.boolean().nullable(), created_at: s, last_used_at: sn }),
    ),
    sessions: z.array(
      z.object({
        id: s,
        auth_method: s,
        trusted_device: z.boolean(),
        ip: sn,
        user_agent: sn,
        created_at: s,
        expires_at: s,
        revoked_at: sn,
        revoked_reason: sn,
      }),
    ),
    memberships: z.object({
      orgs: z.array(
        z.object({ org_id: s, name: s, slug: s, role: s, created_at: s, titular_owner: z.boolean() }),
      ),
      sites: z.array(z.object({ site_id: s, org_id: sn, role: s, created_at: s, name: sn })),
    }),
    invitations: z.array(
      z.object({
        id: s,
        scope: s,
        org_id: s,
        org_name: s,
        site_id: sn,
        site_name: sn,
        email: s,
        role: s,
        created_at: s,
        expires_at: s,
        accepted_at: sn,
        revoked_at: sn,
        sent: z.boolean(),
        received: z.boolean(),
      }),
    ),
    security_events: z.array(
      z.object({
        id: s,
        type: s,
        method: sn,
        target: sn,
        detail: sn,
        ip_prefix: sn,
        user_agent: sn,
        created_at: s,
      }),
    ),
  })
  .openapi("AccountExport");
export type AccountExport = z.infer<typeof AccountExportSchema>;

/** The statements of the export, in the order of `EXPORT_SECTIONS`. */
function exportStatements(db: D1Database, userId: string) {
  const q = (sql: string) => db.prepare(sql).bind(userId);
  return [
    q(
      "SELECT id, display_name, status, (password_hash IS NOT NULL) AS password_set, created_at, updated_at FROM users WHERE id = ?1",
    ),
    q(
      "SELECT id, address, is_primary, verified_at, usable_at, created_at FROM email_addresses WHERE user_id = ?1 ORDER BY created_at, id",
    ),
    q("SELECT e164, verified_at, created_at FROM phones WHERE user_id = ?1"),
    q("SELECT confirmed_at, created_at FROM totp_factors WHERE user_id = ?1"),
    q(
      "SELECT COUNT(*) AS total, COUNT(*) - COUNT(used_at) AS unused, MAX(created_at) AS generated_at FROM recovery_codes WHERE user_id = ?1",
    ),
    q(
      "SELECT id, name, discoverable, created_at, last_used_at FROM passkeys WHERE user_id = ?1 ORDER BY created_at, id",
    ),
    q(
      `SELECT id, auth_method, trusted_device, ip, user_agent, created_at, expires_at, revoked_at, revoked_reason
       FROM sessions WHERE user_id = ?1 ORDER BY created_at, id`,
    ),
    q(
      `SELECT o.id AS org_id, o.name, o.slug, m.role, m.created_at, (o.owner_user_id = ?1) AS titular_owner
       FROM org_memberships m JOIN orgs o ON o.id = m.org_id WHERE m.user_id = ?1 ORDER BY m.created_at, o.id`,
    ),
    q(
      "SELECT site_id, org_id, role, created_at FROM site_memberships WHERE user_id = ?1 ORDER BY created_at, site_id",
    ),
    q(
      `SELECT i.id, i.scope, i.org_id, o.name AS org_name, i.site_id, i.email, i.role, i.created_at, i.expires_at,
              i.accepted_at, i.revoked_at, (i.invited_by = ?1) AS sent, (i.email IN
                (SELECT address FROM email_addresses WHERE user_id = ?1 AND verified_at IS NOT NULL)) AS received
       FROM invitations i JOIN orgs o ON o.id = i.org_id
       WHERE i.invited_by = ?1 OR i.email IN (SELECT address FROM email_addresses WHERE user_id = ?1 AND verified_at IS NOT NULL)
       ORDER BY i.created_at, i.id`,
    ),
    q(
      `SELECT id, type, method, target, detail, ip_prefix, user_agent, created_at FROM security_events
       WHERE user_id = ?1 ORDER BY id`,
    ),
  ];
}

const bool = (v: unknown) => v === 1 || v === true;

async function siteNames(env: Env, ids: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (ids.length === 0) return names;
  try {
    for (const s of await rpc<SitesRpc>(env.SITES).siteNames(ids)) names.set(s.id, s.name);
  } catch {
    // Names are a courtesy: the export stands with ids.
  }
  return names;
}

export async function exportAccount(env: Env, userId: string): Promise<AccountExport> {
  const db = env.DB;
  const results = await db.batch<Row>(exportStatements(db, userId));
  const [user, emails, phone, totp, recovery, passkeys, sessions, orgs, sites, invitations, events] =
    results.map((r) => r.results ?? []) as Row[][];
  const siteIds = [
    ...new Set([...sites!, ...invitations!].map((s) => s.site_id).filter(Boolean) as string[]),
  ];
  const names = await siteNames(env, siteIds.slice(0, 100));
  const profile = user![0]!;
  const codes = recovery![0]!;
  return {
    format: "site-platform.account-export/1",
    exported_at: new Date().toISOString(),
    profile: { ...profile, password_set: bool(profile.password_set) },
    email_addresses: emails!.map((e) => ({ ...e, is_primary: bool(e.is_primary) })),
    phone: phone![0] ?? null,
    factors: [
      ...totp!.map((t) => ({ kind: "totp", ...t })),
      ...(phone![0]?.verified_at
        ? [{ kind: "sms", confirmed_at: phone![0].verified_at, created_at: phone![0].created_at }]
        : []),
      ...passkeys!.map((p) => ({ kind: "passkey", confirmed_at: p.created_at, created_at: p.created_at })),
    ],
    recovery_codes:
      Number(codes.total) > 0
        ? { total: codes.total, unused: codes.unused, generated_at: codes.generated_at }
        : null,
    passkeys: passkeys!.map((p) => ({
      ...p,
      discoverable: p.discoverable === null ? null : bool(p.discoverable),
    })),
    sessions: sessions!.map((s) => ({ ...s, trusted_device: bool(s.trusted_device) })),
    memberships: {
      orgs: orgs!.map((o) => ({ ...o, titular_owner: bool(o.titular_owner) })),
      sites: sites!.map((s) => ({ ...s, name: names.get(s.site_id as string) ?? null })),
    },
    invitations: invitations!.map((i) => ({
      ...i,
      site_name: i.site_id ? (names.get(i.site_id as string) ?? null) : null,
      sent: bool(i.sent),
      received: bool(i.received),
    })),
    security_events: events,
  } as AccountExport;
}

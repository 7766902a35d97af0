/**
 * Taking your data (issue 24 §3): one JSON document of everything the caller's account holds in identity,
 * read in one D1 batch (one consistent snapshot). Only what describes the account to its owner: never a
 * password hash, TOTP secret, recovery-code hash, passkey public key or credential id, refresh-token
 * hash, code, or invitation token hash. Site names come from the sites registry (a site it does not name
 * keeps `name: null`).
 */
import { z } from "@hono/zod-openapi";
import { rpc, type SitesRpc } from "../../lib/rpc";
import { batch } from "../../lib/sql";
import type { Env } from "../core/worker-env";
import { exportQueries } from "./export-store";

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
  const [user, emails, phone, totp, recovery, passkeys, sessions, orgs, sites, invitations, events] =
    await batch(db, exportQueries(db, userId));
  const siteIds = [
    ...new Set([...sites.rows, ...invitations.rows].map((s) => s.site_id).filter(Boolean) as string[]),
  ];
  const names = await siteNames(env, siteIds.slice(0, 100));
  const profile = user.rows[0]!;
  const codes = recovery.rows[0]!;
  const phoneRow = phone.rows[0];
  return {
    format: "site-platform.account-export/1",
    exported_at: new Date().toISOString(),
    profile: { ...profile, password_set: bool(profile.password_set) },
    email_addresses: emails.rows.map((e) => ({ ...e, is_primary: bool(e.is_primary) })),
    phone: phoneRow ?? null,
    factors: [
      ...totp.rows.map((t) => ({ kind: "totp" as const, ...t })),
      ...(phoneRow?.verified_at
        ? [{ kind: "sms" as const, confirmed_at: phoneRow.verified_at, created_at: phoneRow.created_at }]
        : []),
      ...passkeys.rows.map((p) => ({
        kind: "passkey" as const,
        confirmed_at: p.created_at,
        created_at: p.created_at,
      })),
    ],
    recovery_codes:
      Number(codes.total) > 0
        ? { total: codes.total, unused: codes.unused, generated_at: codes.generated_at }
        : null,
    passkeys: passkeys.rows.map((p) => ({
      ...p,
      discoverable: p.discoverable === null ? null : bool(p.discoverable),
    })),
    sessions: sessions.rows.map((s) => ({ ...s, trusted_device: bool(s.trusted_device) })),
    memberships: {
      orgs: orgs.rows.map((o) => ({ ...o, titular_owner: bool(o.titular_owner) })),
      sites: sites.rows.map((s) => ({ ...s, name: names.get(s.site_id) ?? null })),
    },
    invitations: invitations.rows.map((i) => ({
      ...i,
      site_name: i.site_id ? (names.get(i.site_id) ?? null) : null,
      sent: bool(i.sent),
      received: bool(i.received),
    })),
    security_events: events.rows,
  };
}

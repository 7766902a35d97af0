/**
 * A staff person as identity holds them, for content's tests over the real identity Worker: an account
 * (with its display name), a live session, and preset memberships. Content's dashboard writes re-read the
 * person's grant from identity on each write (issue 34, `IdentityRpc.siteGrant`), so the edge headers a
 * test sends must describe a person identity knows; `personHeaders` are those headers (with the session).
 */
import { env } from "cloudflare:workers";
import { newId } from "../../src/lib/ids";
import { staffHeaders } from "./content-helpers";

const identityDb = (env as unknown as { TEST_IDENTITY_DB: D1Database }).TEST_IDENTITY_DB;

export interface SeededPerson {
  userId: string;
  sessionId: string;
  displayName: string | null;
  /** The signed-in person's edge headers, as the gateway sets them for this session. */
  headers: Record<string, string>;
}

/**
 * An account holding `site` roles (presets: `site_contributor`, `site_author`, `site_editor`, `site_owner`)
 * on sites of organization `orgId` and `org` roles (presets) in organizations (made when missing).
 */
export async function seedPerson(options: {
  displayName?: string | null;
  org?: { org_id: string; role: string }[];
  site?: { site_id: string; org_id: string; role: string }[];
}): Promise<SeededPerson> {
  const userId = newId();
  const sessionId = newId();
  const displayName = options.displayName === undefined ? `P ${userId.slice(-6)}` : options.displayName;
  const now = new Date().toISOString();
  const later = new Date(Date.now() + 3600_000).toISOString();
  const statements = [
    identityDb
      .prepare(
        "INSERT INTO users (id, status, display_name, created_at, updated_at) VALUES (?, 'active', ?, ?, ?)",
      )
      .bind(userId, displayName, now, now),
    identityDb
      .prepare(
        `INSERT INTO sessions (id, user_id, family_id, kind, refresh_hash, auth_method, created_at, expires_at)
         VALUES (?, ?, ?, 'staff', ?, 'password', ?, ?)`,
      )
      .bind(sessionId, userId, newId(), `test-${sessionId}`, now, later),
  ];
  for (const m of options.org ?? []) {
    statements.push(
      identityDb
        .prepare(
          "INSERT OR IGNORE INTO orgs (id, name, slug, owner_user_id, created_at) VALUES (?, 'Test org', ?, ?, ?)",
        )
        .bind(m.org_id, `org-${m.org_id.toLowerCase()}`, userId, now),
      identityDb
        .prepare("INSERT INTO org_memberships (org_id, user_id, role, created_at) VALUES (?, ?, ?, ?)")
        .bind(m.org_id, userId, m.role, now),
    );
  }
  for (const m of options.site ?? []) {
    statements.push(
      identityDb
        .prepare(
          "INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(m.site_id, userId, m.org_id, m.role, now),
    );
  }
  await identityDb.batch(statements);
  const headers = {
    ...staffHeaders(userId, {
      org: options.org ?? [],
      site: (options.site ?? []).map(({ site_id, role }) => ({ site_id, role })),
    }),
    "x-session-id": sessionId,
  };
  return { userId, sessionId, displayName, headers };
}

/** Changes the person's role on the site in identity (their edge headers, as a cache would, still say the old one). */
export async function setSiteRole(person: SeededPerson, siteId: string, role: string | null): Promise<void> {
  const statement =
    role === null
      ? identityDb
          .prepare("DELETE FROM site_memberships WHERE site_id = ? AND user_id = ?")
          .bind(siteId, person.userId)
      : identityDb
          .prepare("UPDATE site_memberships SET role = ? WHERE site_id = ? AND user_id = ?")
          .bind(role, siteId, person.userId);
  await statement.run();
}

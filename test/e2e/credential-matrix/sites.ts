/**
 * The credential matrix's rows for sites' registry (`src/sites/credentials.ts`): one row per (kind, ending
 * event) pair, each making its own tenant, performing the event through the gateway as the person or
 * operator who ends it, and using the credential as its holder would before and after.
 */
import type { TOTP } from "otpauth";
import { expect } from "vitest";
import { freshIp } from "../../support/identity-helpers";
import { call, enrolTotp, PASSWORD, type Session } from "../../support/platform";
import { type MatrixRows, row } from "./row";
import {
  archiveSite,
  type Buyer,
  buyer,
  deleteSite,
  demoteMember,
  handOver,
  type MintedKey,
  member,
  mintKey,
  removeMember,
  revokeKey,
  type Tenant,
  tenant,
  transferAway,
} from "./site-steps";

// ---- Proved custom hosts ----

interface HostMade {
  t: Tenant;
  host: string;
}

/** A site whose primary domain is proved (the dev-only proof: there is no DNS here; the proof itself is host-proof's). */
async function provedHost(): Promise<HostMade> {
  const t = await tenant();
  const host = `www.${crypto.randomUUID().slice(0, 8)}-matrix.test`;
  const set = await call("PATCH", `/api/v1/sites/${t.site.id}`, {
    token: t.owner.access_token,
    body: { primary_domain: host },
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  const proved = await call("POST", "/api/v1/sites/__dev/prove-host", {
    token: t.owner.access_token,
    body: { host },
  });
  expect(proved.status, JSON.stringify(proved.body)).toBe(200);
  return { t, host };
}

function hostRow(end: (m: HostMade) => Promise<void>) {
  return row<HostMade>({
    arrange: provedHost,
    use: async (m) => (await call("GET", `/api/v1/sites/by-host?host=${encodeURIComponent(m.host)}`)).status,
    end,
    ended: 404,
  });
}

// ---- Markup on the live site ----

interface PersonMarkup {
  t: Tenant;
  person: Session;
  totp: TOTP;
  /** The person's session: a new sign-in after the event (the old one's edge cache is the session's bound). */
  token: string;
}

let markupRound = 0;
const script = () => `<script>analytics(${++markupRound})</script>`;

/** An organization admin (who holds `code`) with TOTP, so that they can sign in again after the event. */
async function markupAdmin(): Promise<PersonMarkup> {
  const t = await tenant();
  const person = await member(t);
  const totp = await enrolTotp(person.access_token);
  return { t, person, totp, token: person.access_token };
}

/** A new session of the person (password and the next window's TOTP code): the edge reads its grants afresh. */
async function signInAgain(m: PersonMarkup): Promise<void> {
  const login = await call<{ access_token: string }>("POST", "/api/v1/auth/login", {
    body: {
      email: m.person.user.email,
      password: PASSWORD,
      totp_code: m.totp.generate({ timestamp: Date.now() + 30_000 }),
    },
    headers: { "cf-connecting-ip": freshIp() },
  });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  m.token = login.body.access_token;
}

function personMarkupRow(event: (m: PersonMarkup) => Promise<void>, ended: number) {
  return row<PersonMarkup>({
    arrange: markupAdmin,
    use: async (m) =>
      (
        await call("PATCH", `/api/v1/sites/${m.t.site.id}`, {
          token: m.token,
          body: { settings: { code_injection: script() } },
        })
      ).status,
    async end(m) {
      await event(m);
      await signInAgain(m);
    },
    ended,
  });
}

interface KeyMarkup {
  t: Tenant;
  key: MintedKey;
}

async function codeKey(): Promise<KeyMarkup> {
  const t = await tenant();
  const key = await mintKey(t.owner.access_token, t.site.id, {
    kind: "secret",
    scopes: ["site:read", "site:write", "site:code"],
  });
  return { t, key };
}

function keyMarkupRow(end: (m: KeyMarkup) => Promise<void>) {
  return row<KeyMarkup>({
    arrange: codeKey,
    use: async (m) =>
      (
        await call("PATCH", "/v1/site/settings", {
          token: m.key.key,
          body: { settings: { advanced: `<meta name="matrix" content="${++markupRound}">` } },
        })
      ).status,
    end,
    ended: 401,
  });
}

// ---- Site shares ----

interface ShareMade {
  t: Tenant;
  shared: Buyer;
}

/** The tenant's site shared with another organization (as `site_editor`), accepted by its owner. */
async function sharedSite(): Promise<ShareMade> {
  const t = await tenant();
  const shared = await buyer("Shared with");
  await handOver(t, t.site.id, shared, "share");
  return { t, shared };
}

function shareRow(end: (m: ShareMade) => Promise<void>) {
  return row<ShareMade>({
    arrange: sharedSite,
    // The shared organization's owner reads the site (and, as `site_editor`, could edit it).
    use: async (m) =>
      (await call("GET", `/api/v1/sites/${m.t.site.id}`, { token: m.shared.owner.access_token })).status,
    end,
    ended: 404,
  });
}

export const rows: MatrixRows = {
  "sites.custom_domain × undo": hostRow(async (m) => {
    const removed = await call("PATCH", `/api/v1/sites/${m.t.site.id}`, {
      token: m.t.owner.access_token,
      body: { primary_domain: null },
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
  }),
  "sites.custom_domain × site_deletion": hostRow((m) => deleteSite(m.t)),
  "sites.custom_domain × site_archival": hostRow((m) => archiveSite(m.t.site.id)),

  // Demoted to `org_member`, the person still reads the site: the markup PATCH is forbidden (403).
  "sites.markup × member_demotion": personMarkupRow((m) => demoteMember(m.t, m.person), 403),
  // Removed, the person no longer sees the site at all: the missing site's 404.
  "sites.markup × member_removal": personMarkupRow((m) => removeMember(m.t, m.person), 404),
  "sites.markup × key_revocation": keyMarkupRow((m) =>
    revokeKey(m.t.owner.access_token, m.t.site.id, m.key.id),
  ),
  "sites.markup × site_transfer": keyMarkupRow(async (m) => {
    await transferAway(m.t);
  }),

  "sites.site_share × site_transfer": shareRow(async (m) => {
    await transferAway(m.t);
  }),
  "sites.site_share × site_deletion": shareRow((m) => deleteSite(m.t)),
  "sites.site_share × site_archival": shareRow((m) => archiveSite(m.t.site.id)),
};

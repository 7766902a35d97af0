/**
 * Issue 35, the developer's first hour in identity: 428 MFA_NOT_ENROLLED names the ways on (and they work),
 * role errors list the valid roles, an organization's slug is derived from its name when absent (numbered
 * atomically when taken), and the hosted second step shows only the second factor while the confirm page
 * points to the dev outbox in development only (docs/decisions/identity-first-hour.md).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { resolveRole } from "../../src/identity/members/roles";
import {
  call,
  callWith,
  freshEmail,
  freshIp,
  json,
  latestCode,
  problem,
  type SessionBody,
  signupVerified,
  totpCode,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

interface Way {
  way: string;
  page: string;
  authorization?: string;
  requests: { method: string; path: string; body: string[] }[];
}

/** A 428 MFA_NOT_ENROLLED's body, with its ways on. */
interface NotEnrolled {
  status: number;
  code: string;
  detail: string;
  details: { ways: Way[] };
}

const start = (email: string, password: string) =>
  call("POST", "/api/v1/auth/login/start", { body: { email, password }, ip: freshIp() });
const oneStep = (email: string, password: string, totp_code?: string) =>
  call("POST", "/api/v1/auth/login", { body: { email, password, totp_code }, ip: freshIp() });

describe("428 MFA_NOT_ENROLLED names the ways on", () => {
  it.each([
    ["POST /auth/login/start", (u: { email: string; password: string }) => start(u.email, u.password)],
    ["POST /auth/login", (u: { email: string; password: string }) => oneStep(u.email, u.password, "123456")],
  ])("%s: the detail and details.ways name the magic link and the TOTP enrolment", async (_op, login) => {
    const u = await signupVerified();
    const res = await login(u);
    const body = await json<NotEnrolled>(res);
    expect([res.status, body.status, body.code]).toEqual([428, 428, "MFA_NOT_ENROLLED"]);
    const { detail } = body;
    for (const path of [
      "POST /api/v1/auth/magic-link/request",
      "POST /api/v1/auth/magic-link/verify",
      "POST /api/v1/auth/mfa/totp",
      "POST /api/v1/auth/mfa/totp/confirm",
    ]) {
      expect(detail).toContain(path);
    }
    expect(detail).toMatch(/access token/);
    const { ways } = body.details;
    expect(ways.map((w) => w.way)).toEqual(["magic_link", "totp"]);
    expect(ways[0]!.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v1/auth/magic-link/request",
      "POST /api/v1/auth/magic-link/verify",
    ]);
    expect(ways[1]!.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v1/auth/mfa/totp",
      "POST /api/v1/auth/mfa/totp/confirm",
    ]);
    expect(ways[1]!.authorization).toMatch(/Bearer/);
  });

  it("the ways work as written: the magic link signs in, its token enrolls TOTP, the password then signs in", async () => {
    const u = await signupVerified();
    const { ways } = (await json<NotEnrolled>(await start(u.email, u.password))).details;
    const [request, verify] = ways[0]!.requests;
    const ip = freshIp();
    expect((await call(request!.method, request!.path, { body: { email: u.email }, ip })).status).toBe(202);
    const code = await latestCode(u.email, "magic_link");
    const signedIn = await call(verify!.method, verify!.path, { body: { email: u.email, code }, ip });
    expect(signedIn.status).toBe(200);
    const token = (await json<SessionBody>(signedIn)).access_token;
    const [enroll, confirm] = ways[1]!.requests;
    const opened = await call(enroll!.method, enroll!.path, { token });
    expect(opened.status).toBe(200);
    const { secret } = await json<{ secret: string }>(opened);
    const confirmed = await call(confirm!.method, confirm!.path, {
      token,
      body: { code: await totpCode(secret) },
    });
    expect(confirmed.status).toBe(200);
    expect((await oneStep(u.email, u.password, await totpCode(secret, 1))).status).toBe(200);
  });

  it("is still reachable only after the password matched (a wrong password stays 401)", async () => {
    const u = await signupVerified();
    const p = await problem(await start(u.email, "not-the-right-passphrase"));
    expect(p).toMatchObject({ status: 401, code: "INVALID_CREDENTIALS" });
    expect(p.body.details).toBeUndefined();
  });
});

async function newOrg(token: string, body: Record<string, unknown>) {
  return call("POST", "/api/v1/auth/orgs", { token, body });
}

describe("role errors list the valid roles", () => {
  const ORG_PRESETS = ["org_admin", "org_member", "org_owner"];
  const SITE_PRESETS = ["site_author", "site_contributor", "site_editor", "site_owner"];

  async function orgWithCustomRoles() {
    const owner = await signupVerified();
    const token = owner.session.access_token;
    const org = await json<{ id: string }>(
      await newOrg(token, { name: "Roles Org", slug: `r-${crypto.randomUUID().slice(0, 8)}` }),
    );
    const now = new Date().toISOString();
    const custom = (scope: string, slug: string) =>
      e.DB.prepare(
        `INSERT INTO roles (id, org_id, scope, slug, name, is_system, permissions, created_at)
         VALUES (?, ?, ?, ?, ?, 0, '[]', ?)`,
      ).bind(`role_${crypto.randomUUID()}`, org.id, scope, slug, slug, now);
    await e.DB.batch([custom("site", "proofreader"), custom("org", "auditor"), custom("site", "a_reviewer")]);
    return { token, orgId: org.id };
  }

  it("BAD_ROLE and ROLE_NOT_FOUND on an organization member carry the org roles, presets and custom, sorted", async () => {
    const { token, orgId } = await orgWithCustomRoles();
    const member = await signupVerified(freshEmail("roles"));
    const add = (role: string) =>
      call("POST", `/api/v1/auth/orgs/${orgId}/members`, { token, body: { email: member.email, role } });
    const expected = [...ORG_PRESETS, "auditor"].sort();
    for (const [role, code] of [
      ["editor", "BAD_ROLE"],
      ["site_editor", "BAD_ROLE"],
      ["bad role!", "BAD_ROLE"],
      ["janitor", "ROLE_NOT_FOUND"],
    ] as const) {
      const p = await problem(await add(role));
      expect(p, role).toMatchObject({ status: 400, code, body: { details: { valid_roles: expected } } });
      expect(p.body.detail, role).toContain(`Valid organization roles: ${expected.join(", ")}.`);
    }
    // The custom role listed is accepted.
    expect((await add("auditor")).status).toBe(201);
  });

  it("a site role refused lists the site presets and the organization's custom site roles", async () => {
    const { orgId } = await orgWithCustomRoles();
    const expected = [...SITE_PRESETS, "a_reviewer", "proofreader"].sort();
    for (const [role, code] of [
      ["org_admin", "BAD_ROLE"],
      ["admin", "BAD_ROLE"],
      ["janitor", "ROLE_NOT_FOUND"],
    ] as const) {
      const refused = await resolveRole(e.DB, orgId, "site", role).then(
        () => null,
        (err: { code: string; detail: string; details: { valid_roles: string[] } }) => err,
      );
      expect(refused, role).toMatchObject({ code, details: { valid_roles: expected } });
      expect(refused?.detail, role).toContain(`Valid site roles: ${expected.join(", ")}.`);
    }
    // Another organization's custom roles are never listed: an organization without any sees the presets.
    const owner = await signupVerified();
    const plain = await json<{ id: string }>(await newOrg(owner.session.access_token, { name: "Plain Org" }));
    const elsewhere = await resolveRole(e.DB, plain.id, "site", "nope").catch(
      (err: { details: { valid_roles: string[] } }) => err.details.valid_roles,
    );
    expect(elsewhere).toEqual(SITE_PRESETS);
  });
});

describe("POST /auth/orgs derives the slug from the name", () => {
  /** A name no other test run shares, so the derived slugs start fresh. */
  const uniqueName = (label: string) => `${label} ${crypto.randomUUID().slice(0, 8)}`;

  it("derives it like a site's (ASCII-folded, hyphens), and numbers it when taken: acme, acme-2, acme-3", async () => {
    const { session } = await signupVerified();
    const token = session.access_token;
    const name = uniqueName("Café Ñandú --");
    const base = `cafe-nandu-${name.slice(-8)}`;
    const slugs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await newOrg(token, { name });
      expect(res.status).toBe(201);
      const org = await json<{ slug: string; name: string; role: string }>(res);
      expect(org).toMatchObject({ name, role: "org_owner" });
      slugs.push(org.slug);
    }
    expect(slugs).toEqual([base, `${base}-2`, `${base}-3`]);
    const mine = await json<{ items: { slug: string }[] }>(await call("GET", "/api/v1/auth/orgs", { token }));
    expect(mine.items.map((o) => o.slug)).toEqual(expect.arrayContaining(slugs));
  });

  it("20 concurrent creations of one name all succeed, each with its own slug", async () => {
    const { session } = await signupVerified();
    const name = uniqueName("Race");
    const base = `race-${name.slice(-8)}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => newOrg(session.access_token, { name })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
    const slugs = await Promise.all(answers.map(async (r) => (await json<{ slug: string }>(r)).slug));
    expect(new Set(slugs).size).toBe(20);
    expect(slugs.sort()).toEqual([base, ...Array.from({ length: 19 }, (_, i) => `${base}-${i + 2}`)].sort());
  });

  it("counts past an explicit numbered slug, and a derived name that ends in a number keeps it", async () => {
    const { session } = await signupVerified();
    const token = session.access_token;
    const name = uniqueName("Gap");
    const base = `gap-${name.slice(-8)}`;
    expect((await newOrg(token, { name, slug: base })).status).toBe(201);
    expect((await newOrg(token, { name: "x", slug: `${base}-7` })).status).toBe(201);
    // Far-out suffixes (more than 9 digits) do not push the count.
    expect((await newOrg(token, { name: "x", slug: `${base}-99999999999999999999` })).status).toBe(201);
    expect(await json(await newOrg(token, { name }))).toMatchObject({ slug: `${base}-8` });
    expect(await json(await newOrg(token, { name: `${name} 2` }))).toMatchObject({ slug: `${base}-2` });
  });

  it("a long name is cut so that the numbered slug stays one 63-character label", async () => {
    const { session } = await signupVerified();
    const token = session.access_token;
    const name = `${crypto.randomUUID().replaceAll("-", "")}${"b".repeat(60)}`;
    const first = await json<{ slug: string }>(await newOrg(token, { name }));
    expect(first.slug).toBe(name.slice(0, 63));
    const second = await json<{ slug: string }>(await newOrg(token, { name }));
    expect(second.slug).toBe(`${name.slice(0, 61)}-2`);
    const third = await json<{ slug: string }>(await newOrg(token, { name }));
    expect(third.slug).toBe(`${name.slice(0, 61)}-3`);
  });

  it("an explicit slug that is taken keeps 409 SLUG_TAKEN; a name without letters or digits needs a slug", async () => {
    const { session } = await signupVerified();
    const token = session.access_token;
    const slug = `taken-${crypto.randomUUID().slice(0, 8)}`;
    expect((await newOrg(token, { name: "One", slug })).status).toBe(201);
    expect(await problem(await newOrg(token, { name: "Two", slug }))).toMatchObject({
      status: 409,
      code: "SLUG_TAKEN",
    });
    const p = await problem(await newOrg(token, { name: "!!! ???" }));
    expect(p).toMatchObject({ status: 400, code: "BAD_SLUG" });
    expect(p.body.detail).toMatch(/send a slug/);
  });
});

/** The markup of the element with `id` (through its closing tag at the same depth), from a rendered page. */
function elementById(html: string, id: string): string {
  const open = new RegExp(`<(\\w+)[^>]*\\bid="${id}"[^>]*>`).exec(html);
  if (!open) return "";
  const tag = open[1]!;
  let depth = 0;
  const re = new RegExp(`<${tag}\\b[^>]*>|</${tag}>`, "g");
  re.lastIndex = open.index;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    depth += m[0].startsWith("</") ? -1 : 1;
    if (depth === 0) return html.slice(open.index, m.index + m[0].length);
  }
  return "";
}

describe("hosted pages", () => {
  it("the sign-in page's second step holds only the second factor; passkey-first and SSO belong to the first step", async () => {
    const html = await (await call("GET", "/auth/sign-in")).text();
    const first = elementById(html, "first-step");
    const second = elementById(html, "second-factor");
    expect(second).toContain("Confirm it is you");
    expect(second).toContain('id="sf-totp"');
    for (const firstStepOnly of ['id="passkey-sign-in"', 'id="sso-form"', 'id="password-form"']) {
      expect(first).toContain(firstStepOnly);
      expect(second).not.toContain(firstStepOnly);
    }
    expect(second).not.toContain("Sign in with a passkey");
    expect(second).not.toContain("Continue with SSO");
    // Nothing of the first step sits between the two: the script hides #first-step as a whole.
    const between = html.slice(html.indexOf(first) + first.length, html.indexOf(second));
    expect(between.trim()).toBe("");
  });

  it("the confirm page points to the dev outbox when DEV_OUTBOX is on, and never when it is off", async () => {
    const on = await (await call("GET", "/auth/confirm?email=a%40example.com")).text();
    const note = elementById(on, "dev-outbox");
    expect(note).toContain("dev outbox");
    expect(note).toContain("/api/v1/auth/__dev/outbox?to=a%40example.com");
    for (const value of ["false", ""]) {
      const off = await (
        await callWith({ DEV_OUTBOX: value }, "GET", "/auth/confirm?email=a%40example.com")
      ).text();
      expect(off).toContain("We e-mailed a 6-digit code");
      expect(off).not.toContain("dev-outbox");
      expect(off).not.toContain("__dev/outbox");
    }
  });
});

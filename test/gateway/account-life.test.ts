/**
 * Issue 24 §2 and §3 through the gateway: leaving (the last-owner refusal, the step-up, the grace period
 * and its sign-in refusal, the cancel, the erasure across the grace boundary with the cron's injected
 * clock, content's personas dropping the name) and taking one's data (the export), behind the tenant
 * walls: the account is always the Bearer's.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { contentDbOf } from "../support/content-groups";
import {
  call,
  createOrg,
  createSite,
  outboxCode,
  PASSWORD,
  type Session,
  uniqueEmail,
  verifiedUser,
} from "../support/platform";

const DAY = 24 * 3600 * 1000;
const bindings = env as unknown as {
  IDENTITY: Fetcher;
  TEST_IDENTITY_DB: D1Database;
};
const idb = () => bindings.TEST_IDENTITY_DB;

interface ExportDoc {
  profile: { id: string; password_set: boolean };
  email_addresses: { address: string }[];
  sessions: unknown[];
  memberships: { orgs: unknown[] };
  invitations: unknown[];
  security_events: { type: string }[];
}

interface Outbox {
  messages: { purpose: string; code: string | null; subject: string }[];
}

async function outbox(to: string) {
  const res = await call<Outbox>("GET", `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(to)}`);
  return res.body.messages;
}

/** A step-up operation called twice: without a code (428, a code mailed), then with it. */
async function withStepUp<T>(method: string, path: string, s: Session) {
  const asked = await call<{ code: string }>(method, path, { token: s.access_token });
  expect(asked.status, JSON.stringify(asked.body)).toBe(428);
  expect(asked.body.code).toBe("STEP_UP_REQUIRED");
  const code = await outboxCode(s.user.email, "sensitive_action");
  return call<T>(method, path, { token: s.access_token, headers: { "x-step-up-code": code } });
}

/** Runs identity's hourly cron as if it were `at` (the erasure's injected clock). */
async function cronAt(at: number) {
  await (bindings.IDENTITY as unknown as { scheduled: (o: object) => Promise<unknown> }).scheduled({
    cron: "0 * * * *",
    scheduledTime: new Date(at),
  });
}

/** An organization owned by `owner` with `other` as a second owner. */
async function sharedOrg(owner: Session, other: Session, name: string) {
  const org = await createOrg(owner.access_token, name);
  const added = await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
    token: owner.access_token,
    body: { email: other.user.email, role: "org_owner" },
  });
  expect(added.status).toBe(201);
  return org;
}

const loginStart = (email: string, password = PASSWORD) =>
  call<{ code: string; details?: { cancel: string; erase_after: string } }>(
    "POST",
    "/api/v1/auth/login/start",
    {
      body: { email, password },
    },
  );

describe("DELETE /api/v1/auth/account", () => {
  it("refuses the last owner of an organization with its name, before any code is sent", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token, "Acme Leaving");
    const refused = await call<{ code: string; details: { orgs: { id: string; name: string }[] } }>(
      "DELETE",
      "/api/v1/auth/account",
      { token: owner.access_token },
    );
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("LAST_ORG_OWNER");
    expect(refused.body.details.orgs).toEqual([{ id: org.id, name: "Acme Leaving" }]);
    expect((await outbox(owner.user.email)).map((m) => m.purpose)).not.toContain("sensitive_action");
    const still = await call("GET", "/api/v1/auth/sessions", { token: owner.access_token });
    expect(still.status).toBe(200);
  });

  it("refuses the last owner of a site with the site's name", async () => {
    const admin = await verifiedUser();
    const org = await createOrg(admin.access_token, "Site Org");
    const site = await createSite(admin.access_token, org.id);
    const invitee = uniqueEmail("site-owner");
    const invited = await call("POST", `/api/v1/auth/sites/${site.id}/invitations`, {
      token: admin.access_token,
      body: { email: invitee, role: "owner" },
    });
    expect(invited.status).toBe(202);
    const link = (
      await call<{ messages: { purpose: string; link: string | null }[] }>(
        "GET",
        `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(invitee)}`,
      )
    ).body.messages.find((m) => m.purpose === "invitation")!.link!;
    const accepted = await call<Session>("POST", "/api/v1/auth/invitations/accept", {
      body: { token: new URL(link).searchParams.get("token"), password: PASSWORD },
    });
    expect(accepted.status).toBe(200);
    const refused = await call<{ code: string; details: { sites: { id: string; name: string | null }[] } }>(
      "DELETE",
      "/api/v1/auth/account",
      { token: accepted.body.access_token },
    );
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("LAST_SITE_OWNER");
    expect(refused.body.details.sites).toEqual([{ id: site.id, name: "Site" }]);
  });

  it("asks for the step-up, refuses a wrong code or another account's, and changes nothing then", async () => {
    const a = await verifiedUser();
    const b = await verifiedUser();
    const asked = await call<{ details: { channel: string; sent_to: string } }>(
      "DELETE",
      "/api/v1/auth/account",
      {
        token: a.access_token,
      },
    );
    expect(asked.status).toBe(428);
    expect(asked.body.details.channel).toBe("email");
    const aCode = await outboxCode(a.user.email, "sensitive_action");
    const wrong = await call<{ code: string }>("DELETE", "/api/v1/auth/account", {
      token: a.access_token,
      headers: { "x-step-up-code": aCode === "000000" ? "111111" : "000000" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("CODE_INVALID");
    // A's code does not delete B (codes are bound to the account and the operation).
    const borrowed = await call<{ code: string }>("DELETE", "/api/v1/auth/account", {
      token: b.access_token,
      headers: { "x-step-up-code": aCode },
    });
    expect(borrowed.status).toBe(401);
    expect((await call("GET", "/api/v1/auth/sessions", { token: a.access_token })).status).toBe(200);
    expect((await call("GET", "/api/v1/auth/sessions", { token: b.access_token })).status).toBe(200);
    expect((await call("DELETE", "/api/v1/auth/account")).status).toBe(401);
  });

  it("ends every session, refuses sign-in during the grace (after the password only), and the e-mailed code cancels", async () => {
    const a = await verifiedUser();
    const b = await verifiedUser();
    const org = await sharedOrg(a, b, "Two Owners");
    const deleted = await withStepUp<{
      status: string;
      erase_after: string;
      cancel: string;
      grace_days: number;
    }>("DELETE", "/api/v1/auth/account", a);
    expect(deleted.status).toBe(202);
    expect(deleted.body.status).toBe("pending_deletion");
    expect(deleted.body.grace_days).toBe(30);
    expect(Date.parse(deleted.body.erase_after) - Date.now()).toBeGreaterThan(29.9 * DAY);
    expect(deleted.body.cancel).toBe("POST /api/v1/auth/account/deletion/cancel");
    expect((await call("GET", "/api/v1/auth/sessions", { token: a.access_token })).status).toBe(401);
    const refresh = await call("POST", "/api/v1/auth/refresh", { body: { refresh_token: a.refresh_token } });
    expect(refresh.status).toBe(401);

    // The refusal comes only after the password matched; a wrong password is the stranger's 401.
    const pending = await loginStart(a.user.email);
    expect(pending.status).toBe(403);
    expect(pending.body.code).toBe("ACCOUNT_PENDING_DELETION");
    expect(pending.body.details?.cancel).toBe(deleted.body.cancel);
    const wrongPassword = await loginStart(a.user.email, "not the password at all");
    const unknown = await loginStart(uniqueEmail("nobody"), "not the password at all");
    expect([wrongPassword.status, wrongPassword.body.code]).toEqual([401, "INVALID_CREDENTIALS"]);
    expect([unknown.status, unknown.body.code]).toEqual([wrongPassword.status, wrongPassword.body.code]);

    // The other owner cannot leave the account pending deletion as the organization's only owner.
    const leave = await call<{ code: string }>("DELETE", `/api/v1/auth/orgs/${org.id}/members/${b.user.id}`, {
      token: b.access_token,
    });
    expect([leave.status, leave.body.code]).toEqual([409, "LAST_ORG_OWNER"]);

    // The cancel: the same 202 for any address; the code goes only to the pending account's.
    const ask = await call("POST", "/api/v1/auth/account/deletion/cancel", { body: { email: a.user.email } });
    const askUnknown = await call("POST", "/api/v1/auth/account/deletion/cancel", {
      body: { email: uniqueEmail("nobody") },
    });
    const askActive = await call("POST", "/api/v1/auth/account/deletion/cancel", {
      body: { email: b.user.email },
    });
    expect(ask.status).toBe(202);
    expect([askUnknown.status, askUnknown.body]).toEqual([ask.status, ask.body]);
    expect([askActive.status, askActive.body]).toEqual([ask.status, ask.body]);
    const code = await outboxCode(a.user.email, "account_restore");
    const bad = await call<{ code: string }>("POST", "/api/v1/auth/account/deletion/cancel", {
      body: { email: a.user.email, code: code === "000000" ? "111111" : "000000" },
    });
    expect([bad.status, bad.body.code]).toEqual([401, "CODE_INVALID"]);
    const cancelled = await call("POST", "/api/v1/auth/account/deletion/cancel", {
      body: { email: a.user.email, code },
    });
    expect(cancelled.status).toBe(200);
    const again = await call("POST", "/api/v1/auth/account/deletion/cancel", {
      body: { email: a.user.email, code },
    });
    expect(again.status).toBe(401);
    expect((await outbox(b.user.email)).map((m) => m.purpose)).not.toContain("account_restore");

    const back = await loginStart(a.user.email);
    expect(back.status).not.toBe(403);
    expect([200, 428]).toContain(back.status);
    const notices = (await outbox(a.user.email)).filter((m) => m.purpose === "account_deletion_notice");
    expect(notices.map((m) => m.subject)).toEqual([
      "Your account will not be deleted",
      "Your account will be deleted",
    ]);
    // Cancelled: a later cron run past the old grace erases nothing.
    await cronAt(Date.now() + 31 * DAY);
    const addresses = await idb()
      .prepare("SELECT COUNT(*) AS n FROM email_addresses WHERE user_id = ?")
      .bind(a.user.id)
      .first<{ n: number }>();
    expect(addresses?.n).toBe(1);
  });

  it("erases after the grace (not before, once), keeps a pseudonymous id, and content drops the name", async () => {
    const leaver = await verifiedUser();
    const other = await verifiedUser();
    const org = await sharedOrg(leaver, other, "Erasure Org");
    const site = await createSite(leaver.access_token, org.id);
    const key = await call<{ key: string }>("POST", `/api/v1/sites/${site.id}/api-keys`, {
      token: leaver.access_token,
      body: {
        name: "autoposter",
        kind: "secret",
        scopes: ["posts:write", "posts:read"],
        author_name: "Ana Leaver",
      },
    });
    expect(key.status).toBe(201);
    const post = await call<{ id: string; author: { slug: string; display_name: string } }>(
      "POST",
      "/v1/posts",
      {
        token: key.body.key,
        body: { title: "Signed post", status: "draft", blocks_json: { blocks: [] } },
      },
    );
    expect(post.status).toBe(201);
    expect(post.body.author.display_name).toBe("Ana Leaver");
    // Transfer the titular ownership so that the erasure has to pass it on.
    const deleted = await withStepUp<{ erase_after: string }>("DELETE", "/api/v1/auth/account", leaver);
    expect(deleted.status).toBe(202);
    const eraseAfter = Date.parse(deleted.body.erase_after);

    await cronAt(eraseAfter - 60_000);
    expect((await loginStart(leaver.user.email)).body.code).toBe("ACCOUNT_PENDING_DELETION");

    await cronAt(eraseAfter + 60_000);
    const gone = await loginStart(leaver.user.email);
    expect([gone.status, gone.body.code]).toEqual([401, "INVALID_CREDENTIALS"]);
    const count = async (table: string) =>
      (await idb()
        .prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE user_id = ?`)
        .bind(leaver.user.id)
        .first<{ n: number }>())!.n;
    for (const table of [
      "email_addresses",
      "sessions",
      "org_memberships",
      "site_memberships",
      "phones",
      "passkeys",
      "totp_factors",
    ]) {
      expect(await count(table), table).toBe(0);
    }
    const tombstone = await idb()
      .prepare("SELECT password_hash, display_name, status FROM users WHERE id = ?")
      .bind(leaver.user.id)
      .first();
    expect(tombstone).toEqual({ password_hash: null, display_name: null, status: "disabled" });
    const events = await idb()
      .prepare("SELECT type FROM security_events WHERE user_id = ?")
      .bind(leaver.user.id)
      .all<{ type: string }>();
    expect(events.results.map((e) => e.type)).toContain("account_erased");
    const titular = await idb()
      .prepare("SELECT owner_user_id FROM orgs WHERE id = ?")
      .bind(org.id)
      .first<{ owner_user_id: string }>();
    expect(titular?.owner_user_id).toBe(other.user.id);
    const members = await call<{ items: { user_id: string }[] }>(
      "GET",
      `/api/v1/auth/orgs/${org.id}/members`,
      {
        token: other.access_token,
      },
    );
    expect(members.body.items.map((m) => m.user_id)).toEqual([other.user.id]);

    // Idempotent: a second run erases nothing and mails nothing more.
    await cronAt(eraseAfter + 2 * 60_000);
    const notices = (await outbox(leaver.user.email)).filter((m) => m.purpose === "account_deletion_notice");
    expect(notices.map((m) => m.subject)).toEqual([
      "Your account was deleted",
      "Your account will be deleted",
    ]);
    const ask = await call("POST", "/api/v1/auth/account/deletion/cancel", {
      body: { email: leaver.user.email },
    });
    expect(ask.status).toBe(202);

    // Content learns of it over the queue: the persona and the post lose the name.
    // In the site's group (docs/decisions/site-groups.md).
    const contentDb = await contentDbOf(site.id);
    let persona: { slug: string; display_name: string } | null = null;
    for (let i = 0; i < 50; i++) {
      persona = await contentDb
        .prepare("SELECT slug, display_name FROM author_personas WHERE user_id = ?")
        .bind(leaver.user.id)
        .first();
      if (persona?.display_name === "Former author") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(persona?.display_name).toBe("Former author");
    expect(persona?.slug).not.toContain("ana");
    const stored = await contentDb
      .prepare("SELECT author_slug, author_name FROM posts WHERE id = ?")
      .bind(post.body.id)
      .first();
    expect(stored).toEqual({ author_slug: persona!.slug, author_name: "Former author" });
  });
});

describe("DELETE /api/v1/auth/account under concurrency", () => {
  it("the two owners of an organization leaving at once: one is scheduled, the other is its last owner", async () => {
    const a = await verifiedUser();
    const b = await verifiedUser();
    await sharedOrg(a, b, "Race Org");
    const codes: string[] = [];
    for (const s of [a, b]) {
      expect((await call("DELETE", "/api/v1/auth/account", { token: s.access_token })).status).toBe(428);
      codes.push(await outboxCode(s.user.email, "sensitive_action"));
    }
    const answers = await Promise.all(
      [a, b].map((s, i) =>
        call<{ code?: string }>("DELETE", "/api/v1/auth/account", {
          token: s.access_token,
          headers: { "x-step-up-code": codes[i]! },
        }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
    expect(answers.find((r) => r.status === 409)?.body.code).toBe("LAST_ORG_OWNER");
  });

  it("ten requests with one code: one deletion, one notice, the rest CODE_INVALID", async () => {
    const a = await verifiedUser();
    expect((await call("DELETE", "/api/v1/auth/account", { token: a.access_token })).status).toBe(428);
    const code = await outboxCode(a.user.email, "sensitive_action");
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        call("DELETE", "/api/v1/auth/account", {
          token: a.access_token,
          headers: { "x-step-up-code": code },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.every((s) => s === 202 || s === 401 || s === 429)).toBe(true);
    const notices = (await outbox(a.user.email)).filter((m) => m.purpose === "account_deletion_notice");
    expect(notices).toHaveLength(1);
  });
});

describe("POST /api/v1/auth/account/export", () => {
  it("asks for the step-up, then returns the caller's own data and never a secret or hash", async () => {
    const owner = await verifiedUser();
    const other = await verifiedUser();
    const org = await sharedOrg(owner, other, "Export Org");
    expect((await call("POST", "/api/v1/auth/account/export")).status).toBe(401);
    const wrong = await call<{ code: string }>("POST", "/api/v1/auth/account/export", {
      token: owner.access_token,
      headers: { "x-step-up-code": "000000" },
    });
    expect(wrong.status).toBe(401);
    const exported = await withStepUp<ExportDoc>("POST", "/api/v1/auth/account/export", owner);
    expect(exported.status).toBe(200);
    const doc = exported.body;
    expect(doc.profile.id).toBe(owner.user.id);
    expect(doc.profile.password_set).toBe(true);
    expect(doc.email_addresses.map((e) => e.address)).toEqual([owner.user.email]);
    expect(doc.sessions.length).toBeGreaterThan(0);
    expect(doc.memberships.orgs).toEqual([
      expect.objectContaining({ org_id: org.id, name: "Export Org", role: "org_owner", titular_owner: true }),
    ]);
    expect(doc.invitations).toEqual([]);
    expect(doc.security_events.map((e) => e.type)).toContain("sign_in_succeeded");
    const text = JSON.stringify(doc);
    for (const secret of [
      "password_hash",
      "secret_enc",
      "code_hash",
      "refresh_hash",
      "token_hash",
      "public_key",
      "credential_id",
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain(owner.refresh_token);
    // The wall: the other account's export is its own.
    expect(text).not.toContain(other.user.email);
    const theirs = await withStepUp<ExportDoc>("POST", "/api/v1/auth/account/export", other);
    expect(theirs.body.profile.id).toBe(other.user.id);
    expect(JSON.stringify(theirs.body)).not.toContain(owner.user.email);
  });
});

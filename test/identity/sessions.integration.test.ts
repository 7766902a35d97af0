import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { IdentityRpc } from "../../src/lib/rpc";
import {
  call,
  callWith,
  expectForeignLikeMissing,
  json,
  latestCode,
  outbox,
  problem,
  type SessionBody,
  signupVerified,
  worker,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;
const rpc = worker as unknown as IdentityRpc;

async function twoSessions() {
  const a = await signupVerified();
  const ip = "198.51.100.7";
  await call("POST", "/api/v1/auth/magic-link/request", { body: { email: a.email }, ip });
  const code = await latestCode(a.email, "magic_link");
  const b = await json<SessionBody>(
    await call("POST", "/api/v1/auth/magic-link/verify", { body: { email: a.email, code }, ip }),
  );
  return { ...a, first: a.session, second: b };
}

describe("GET /auth/sessions", () => {
  it("lists the caller's live sessions and marks the current one", async () => {
    const { first, second } = await twoSessions();
    const res = await call("GET", "/api/v1/auth/sessions", { token: second.access_token });
    expect(res.status).toBe(200);
    const { items } = await json<{ items: { id: string; current: boolean }[] }>(res);
    expect(items.map((s) => s.id).sort()).toEqual([first.session_id, second.session_id].sort());
    expect(items.find((s) => s.current)?.id).toBe(second.session_id);
  });

  it("needs a Bearer (401)", async () => {
    expect((await call("GET", "/api/v1/auth/sessions")).status).toBe(401);
    expect((await call("GET", "/api/v1/auth/sessions", { token: "not.a.jwt" })).status).toBe(401);
  });
});

describe("DELETE /auth/sessions/{id}", () => {
  it("revokes one session without step-up; its token stops working at once", async () => {
    const { first, second } = await twoSessions();
    expect(
      (await call("DELETE", `/api/v1/auth/sessions/${first.session_id}`, { token: second.access_token }))
        .status,
    ).toBe(204);
    expect((await call("GET", "/api/v1/auth/sessions", { token: first.access_token })).status).toBe(401);
    expect((await call("GET", "/api/v1/auth/sessions", { token: second.access_token })).status).toBe(200);
  });

  it("another account's session id answers exactly like a missing one (404) and is untouched", async () => {
    const mine = await signupVerified();
    const theirs = await signupVerified();
    const session = (id: string) => `/api/v1/auth/sessions/${id}`;
    await expectForeignLikeMissing("DELETE", session, theirs.session.session_id, mine.session.access_token);
    expect((await call("GET", "/api/v1/auth/sessions", { token: theirs.session.access_token })).status).toBe(
      200,
    );
  });

  it("revoking the current session clears the cookies", async () => {
    const { session } = await signupVerified();
    const res = await call("DELETE", `/api/v1/auth/sessions/${session.session_id}`, {
      token: session.access_token,
    });
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie().some((c) => /^svc_refresh=;/.test(c) && /Max-Age=0/.test(c))).toBe(
      true,
    );
  });
});

describe("DELETE /auth/sessions (step-up)", () => {
  it("without a code: 428 STEP_UP_REQUIRED with masked channel and destination; nothing revoked", async () => {
    const { first, second, email } = await twoSessions();
    const p = await problem(await call("DELETE", "/api/v1/auth/sessions", { token: second.access_token }));
    expect(p).toMatchObject({ status: 428, code: "STEP_UP_REQUIRED" });
    expect(p.body.details?.channel).toBe("email");
    expect(p.body.details?.sent_to).toBe(`${email[0]}***@example.com`);
    expect((await outbox(email))[0]!.purpose).toBe("sensitive_action");
    expect((await call("GET", "/api/v1/auth/sessions", { token: first.access_token })).status).toBe(200);
  });

  it("a wrong code gives 401 CODE_INVALID and revokes nothing", async () => {
    const { first, second } = await twoSessions();
    await call("DELETE", "/api/v1/auth/sessions", { token: second.access_token });
    const p = await problem(
      await call("DELETE", "/api/v1/auth/sessions", {
        token: second.access_token,
        headers: { "x-step-up-code": "000000" },
      }),
    );
    expect(p).toMatchObject({ status: 401, code: "CODE_INVALID" });
    expect((await call("GET", "/api/v1/auth/sessions", { token: first.access_token })).status).toBe(200);
  });

  it("with the code: all sessions fall and cookies are cleared; the code is single use", async () => {
    const { first, second, email } = await twoSessions();
    await call("DELETE", "/api/v1/auth/sessions", { token: second.access_token });
    const code = await latestCode(email, "sensitive_action");
    const res = await call("DELETE", "/api/v1/auth/sessions", {
      token: second.access_token,
      headers: { "x-step-up-code": code },
    });
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("svc_session=;"))).toBe(true);
    expect((await call("GET", "/api/v1/auth/sessions", { token: first.access_token })).status).toBe(401);
    expect((await call("GET", "/api/v1/auth/sessions", { token: second.access_token })).status).toBe(401);
  });

  it("keep_current keeps the caller's session (and also needs step-up)", async () => {
    const { first, second, email } = await twoSessions();
    expect(
      (await call("DELETE", "/api/v1/auth/sessions?keep_current=true", { token: second.access_token }))
        .status,
    ).toBe(428);
    const code = await latestCode(email, "sensitive_action");
    const res = await call("DELETE", "/api/v1/auth/sessions?keep_current=true", {
      token: second.access_token,
      headers: { "x-step-up-code": code },
    });
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect((await call("GET", "/api/v1/auth/sessions", { token: first.access_token })).status).toBe(401);
    expect((await call("GET", "/api/v1/auth/sessions", { token: second.access_token })).status).toBe(200);
  });

  it("a code sent for another operation does not unlock this one", async () => {
    const { second, email } = await twoSessions();
    await call("POST", "/api/v1/auth/mfa/recovery-codes/generate", { token: second.access_token });
    const code = await latestCode(email, "sensitive_action");
    const res = await call("DELETE", "/api/v1/auth/sessions", {
      token: second.access_token,
      headers: { "x-step-up-code": code },
    });
    expect(res.status).toBe(401);
  });

  it("503 STEP_UP_UNAVAILABLE when the code cannot be sent; nothing revoked", async () => {
    const { first, second } = await twoSessions();
    const p = await problem(
      await callWith(
        { DEV_OUTBOX: "false", MAIL_PROVIDER_URL: "https://mail-down.test/send" },
        "DELETE",
        "/api/v1/auth/sessions",
        {
          token: second.access_token,
        },
      ),
    );
    expect(p).toMatchObject({ status: 503, code: "STEP_UP_UNAVAILABLE" });
    expect((await call("GET", "/api/v1/auth/sessions", { token: first.access_token })).status).toBe(200);
    // The HTTP provider adapter works when the provider answers.
    const ok = await callWith(
      { DEV_OUTBOX: "false", MAIL_PROVIDER_URL: "https://mail.test/send" },
      "DELETE",
      "/api/v1/auth/sessions",
      {
        token: second.access_token,
      },
    );
    expect(ok.status).toBe(428);
  });
});

describe("RPC edgeContext", () => {
  it("returns memberships with permissions, site memberships, operator, and session liveness", async () => {
    const { session } = await signupVerified();
    const org = await json<{ id: string }>(
      await call("POST", "/api/v1/auth/orgs", {
        token: session.access_token,
        body: { name: "Edge Org", slug: `edge-${crypto.randomUUID().slice(0, 8)}` },
      }),
    );
    const now = new Date().toISOString();
    await e.DB.batch([
      e.DB.prepare(
        "INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) VALUES (?, ?, ?, 'site_editor', ?)",
      ).bind("01HSITE0000000000000000001", session.user.id, org.id, now),
      // The structural owner role (is_system) is marked `owner: true` on the edge (issue 19).
      e.DB.prepare(
        "INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) VALUES (?, ?, ?, 'site_owner', ?)",
      ).bind("01HSITE0000000000000000002", session.user.id, org.id, `${now}Z`),
      e.DB.prepare(
        "INSERT INTO platform_operators (user_id, capability, granted_at) VALUES (?, 'operator_read', ?)",
      ).bind(session.user.id, now),
      // A custom site role of the organization: its permissions ride on the edge by name (issue 34).
      e.DB.prepare(
        `INSERT INTO roles (id, org_id, scope, slug, name, is_system, permissions, created_at)
         VALUES (?, ?, 'site', 'proofreader', 'Proofreader', 0, '["posts:read","posts:write_own"]', ?)`,
      ).bind(`role_${crypto.randomUUID()}`, org.id, now),
      e.DB.prepare(
        "INSERT INTO site_memberships (site_id, user_id, org_id, role, created_at) VALUES (?, ?, ?, 'proofreader', ?)",
      ).bind("01HSITE0000000000000000003", session.user.id, org.id, `${now}ZZ`),
    ]);
    const ctx = await rpc.edgeContext({ user_id: session.user.id, session_id: session.session_id });
    expect(ctx).toEqual({
      user_id: session.user.id,
      session_active: true,
      session_kind: "staff",
      org_memberships: [{ org_id: org.id, role: "org_owner", permissions: ["members:manage"], owner: true }],
      site_memberships: [
        { site_id: "01HSITE0000000000000000001", role: "site_editor", permissions: [] },
        { site_id: "01HSITE0000000000000000002", role: "site_owner", permissions: [], owner: true },
        {
          site_id: "01HSITE0000000000000000003",
          role: "proofreader",
          permissions: ["posts:read", "posts:write_own"],
        },
      ],
      operator: "operator_read",
    });
    await call("DELETE", `/api/v1/auth/sessions/${session.session_id}`, { token: session.access_token });
    const after = await rpc.edgeContext({ user_id: session.user.id, session_id: session.session_id });
    expect(after?.session_active).toBe(false);
  });

  it("is null for a user that does not exist, and inactive for another user's session id", async () => {
    expect(await rpc.edgeContext({ user_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV", session_id: "x" })).toBeNull();
    const a = await signupVerified();
    const b = await signupVerified();
    const ctx = await rpc.edgeContext({ user_id: a.session.user.id, session_id: b.session.session_id });
    expect(ctx?.session_active).toBe(false);
    expect(ctx?.org_memberships).toEqual([]);
    expect(ctx?.operator).toBeNull();
  });
});

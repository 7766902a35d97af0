import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, freshIp, json, problem, type SessionBody, signupVerified } from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

function refresh(body: unknown, headers: Record<string, string> = {}) {
  return call("POST", "/api/v1/auth/refresh", {
    ...(body === undefined ? {} : typeof body === "string" ? { rawBody: body } : { body }),
    headers,
    ip: freshIp(),
  });
}

describe("POST /auth/refresh", () => {
  it("rotates: the old session is revoked, a new one issued in the same family", async () => {
    const { session } = await signupVerified();
    const res = await refresh({ refresh_token: session.refresh_token });
    expect(res.status).toBe(200);
    const next = (await res.json()) as SessionBody;
    expect(next.session_id).not.toBe(session.session_id);
    expect(next.refresh_token).not.toBe(session.refresh_token);
    expect(next.user.id).toBe(session.user.id);
    const old = await e.DB.prepare("SELECT revoked_reason, rotated_to FROM sessions WHERE id = ?")
      .bind(session.session_id)
      .first<{ revoked_reason: string; rotated_to: string }>();
    expect(old).toEqual({ revoked_reason: "rotated", rotated_to: next.session_id });
    // The old access token stops working on identity at once.
    expect((await call("GET", "/api/v1/auth/orgs", { token: session.access_token })).status).toBe(401);
    expect((await call("GET", "/api/v1/auth/orgs", { token: next.access_token })).status).toBe(200);
  });

  it("takes the token from the svc_refresh cookie when the body is absent", async () => {
    const { session } = await signupVerified();
    const res = await refresh(undefined, { cookie: `svc_refresh=${session.refresh_token}` });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("svc_refresh="))).toBe(true);
  });

  it("tolerates an empty body and an empty object with the cookie", async () => {
    const { session } = await signupVerified();
    const a = await refresh("", { cookie: `svc_refresh=${session.refresh_token}` });
    expect(a.status).toBe(200);
    const next = (await a.json()) as SessionBody;
    const b = await refresh({}, { cookie: `svc_refresh=${next.refresh_token}` });
    expect(b.status).toBe(200);
  });

  it("answers 400 BAD_REQUEST for a present but malformed body (the session is not lost)", async () => {
    const { session } = await signupVerified();
    for (const body of ["{not json", "[]", "null", JSON.stringify({ refresh_token: 5 })]) {
      expect(
        await problem(await refresh(body, { cookie: `svc_refresh=${session.refresh_token}` })),
      ).toMatchObject({
        status: 400,
        code: "BAD_REQUEST",
      });
    }
    expect((await refresh({ refresh_token: session.refresh_token })).status).toBe(200);
  });

  it("answers 401 REFRESH_FAILED for a missing, malformed or unknown token", async () => {
    const unknown = `rt1.01ARZ3NDEKTSV4RRFFQ69G5FAV.${"A".repeat(43)}`;
    for (const body of [undefined, { refresh_token: "garbage" }, { refresh_token: unknown }]) {
      expect(await problem(await refresh(body))).toMatchObject({ status: 401, code: "REFRESH_FAILED" });
    }
  });

  it("reuse of a rotated token is theft: 401 and every session of the account is revoked", async () => {
    const { session, email, password } = await signupVerified();
    const other = await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() });
    expect(other.status).toBe(202);
    const rotated = (await (await refresh({ refresh_token: session.refresh_token })).json()) as SessionBody;
    expect(await problem(await refresh({ refresh_token: session.refresh_token }))).toMatchObject({
      status: 401,
      code: "REFRESH_FAILED",
    });
    expect(await problem(await refresh({ refresh_token: rotated.refresh_token }))).toMatchObject({
      status: 401,
      code: "REFRESH_FAILED",
    });
    const live = await e.DB.prepare(
      "SELECT COUNT(*) AS n FROM sessions WHERE user_id = ? AND revoked_at IS NULL",
    )
      .bind(session.user.id)
      .first<{ n: number }>();
    expect(live!.n).toBe(0);
    expect(password).toBeTruthy();
  });

  it("concurrent refreshes with one token have at most one winner", async () => {
    const { session } = await signupVerified();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => refresh({ refresh_token: session.refresh_token })),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners.length).toBeLessThanOrEqual(1);
    expect(results.filter((r) => r.status === 401).length).toBeGreaterThanOrEqual(9);
    const successors = await e.DB.prepare(
      "SELECT COUNT(*) AS n FROM sessions WHERE family_id = (SELECT family_id FROM sessions WHERE id = ?)",
    )
      .bind(session.session_id)
      .first<{ n: number }>();
    expect(successors!.n).toBeLessThanOrEqual(2);
  });

  it("answers 423 for a locked account and 403 for a disabled one", async () => {
    const a = await signupVerified();
    await e.DB.prepare("UPDATE users SET status = 'locked' WHERE id = ?").bind(a.session.user.id).run();
    expect((await problem(await refresh({ refresh_token: a.session.refresh_token }))).status).toBe(423);
    const b = await signupVerified();
    await e.DB.prepare("UPDATE users SET status = 'disabled' WHERE id = ?").bind(b.session.user.id).run();
    expect((await problem(await refresh({ refresh_token: b.session.refresh_token }))).status).toBe(403);
  });

  it("answers 401 when the user no longer exists", async () => {
    const a = await signupVerified();
    await e.DB.prepare("PRAGMA foreign_keys = OFF").run();
    await e.DB.prepare("DELETE FROM users WHERE id = ?").bind(a.session.user.id).run();
    const res = await refresh({ refresh_token: a.session.refresh_token });
    expect([401]).toContain(res.status);
    expect((await json(res)).code).toBe("REFRESH_FAILED");
  });
});

describe("POST /auth/refresh when the family store fails", () => {
  it("answers 503 REFRESH_UNAVAILABLE and leaves the session usable", async () => {
    const { callWith } = await import("../support/identity-helpers");
    const { session } = await signupVerified();
    // A real namespace of another class: the rotate call fails as an unreachable object would.
    const broken = { REFRESH_FAMILIES: e.LOGIN_CHALLENGES } as unknown as Record<string, string>;
    const res = await callWith(broken, "POST", "/api/v1/auth/refresh", {
      body: { refresh_token: session.refresh_token },
    });
    expect(res.status).toBe(503);
    expect((await json<{ code: string }>(res)).code).toBe("REFRESH_UNAVAILABLE");
    expect(res.headers.getSetCookie()).toEqual([]);
    expect((await refresh({ refresh_token: session.refresh_token })).status).toBe(200);
  });
});

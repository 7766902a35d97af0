import { describe, expect, it } from "vitest";
import {
  call,
  freshEmail,
  freshIp,
  json,
  latestCode,
  outbox,
  problem,
  type SessionBody,
  signupVerified,
} from "../support/identity-helpers";

describe("POST /auth/magic-link/request", () => {
  it("answers the identical 202 with and without an account; only the owner gets a code", async () => {
    const { email } = await signupVerified();
    const ghost = freshEmail("ghost");
    const a = await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() });
    const b = await call("POST", "/api/v1/auth/magic-link/request", {
      body: { email: ghost },
      ip: freshIp(),
    });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(await a.text()).toBe(await b.text());
    const [mail] = await outbox(email);
    expect(mail).toMatchObject({ purpose: "magic_link" });
    expect(mail!.link).toContain(encodeURIComponent(email));
    expect(await outbox(ghost)).toEqual([]);
  });

  it("does not send to an unverified (pending) address", async () => {
    const email = freshEmail();
    await call("POST", "/api/v1/auth/signup", {
      body: { email, password: "a-long-and-unusual-passphrase-42" },
      ip: freshIp(),
    });
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() });
    expect((await outbox(email)).map((m) => m.purpose)).toEqual(["email_verify"]);
  });

  it("limits per pair of e-mail and client (3 per 15 minutes) and per IP (10 per 15 minutes) with Retry-After", async () => {
    const email = freshEmail();
    const client = freshIp();
    for (let i = 0; i < 3; i++) {
      expect(
        (await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: client })).status,
      ).toBe(202);
    }
    const limited = await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: client });
    expect(limited.status).toBe(429);
    // Another client asking for the same address is not limited by the first one's requests.
    expect(
      (await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() })).status,
    ).toBe(202);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const ip = freshIp();
    for (let i = 0; i < 10; i++) {
      expect(
        (await call("POST", "/api/v1/auth/magic-link/request", { body: { email: freshEmail() }, ip })).status,
      ).toBe(202);
    }
    expect(
      await problem(
        await call("POST", "/api/v1/auth/magic-link/request", { body: { email: freshEmail() }, ip }),
      ),
    ).toMatchObject({ status: 429, code: "RATE_LIMITED" });
  });

  it("refuses an invalid address with 400 INVALID_EMAIL", async () => {
    expect(
      await problem(
        await call("POST", "/api/v1/auth/magic-link/request", { body: { email: "nope" }, ip: freshIp() }),
      ),
    ).toMatchObject({ status: 400, code: "INVALID_EMAIL" });
  });
});

describe("POST /auth/magic-link/verify", () => {
  it("issues a session once per code", async () => {
    const { email } = await signupVerified();
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email }, ip: freshIp() });
    const code = await latestCode(email, "magic_link");
    const ok = await call("POST", "/api/v1/auth/magic-link/verify", { body: { email, code }, ip: freshIp() });
    expect(ok.status).toBe(200);
    expect((await json<SessionBody>(ok)).user.email).toBe(email);
    expect(
      await problem(
        await call("POST", "/api/v1/auth/magic-link/verify", { body: { email, code }, ip: freshIp() }),
      ),
    ).toMatchObject({ status: 401, code: "CODE_INVALID" });
  });

  it("limits typed-code verify attempts per pair of e-mail and client (429), not for other clients", async () => {
    const email = freshEmail();
    const client = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (
          await call("POST", "/api/v1/auth/magic-link/verify", {
            body: { email, code: "123456" },
            ip: client,
          })
        ).status,
      );
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    const other = await call("POST", "/api/v1/auth/magic-link/verify", {
      body: { email, code: "123456" },
      ip: freshIp(),
    });
    expect(other.status).toBe(401);
  });
});

/**
 * Issue 24 §2 on the identity worker: every way in during a deletion's grace period (one-step login,
 * phased login, a challenge opened before, a magic-link code sent before, magic-link request, passkey
 * alone, refresh), and the erasing cron run twice at once past the grace (one erasure, one notice).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  freshIp,
  json,
  latestCode,
  outbox,
  problem,
  type SessionBody,
  softAuthenticator,
  staffUser,
  totpCode,
  withStepUp,
  worker,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;
const DAY = 24 * 3600 * 1000;
const handleOf = (userId: string) =>
  btoa(userId).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");

async function deleteAccount(email: string, session: SessionBody) {
  const res = await withStepUp(email, "DELETE", "/api/v1/auth/account", { token: session.access_token });
  expect(res.status).toBe(202);
  return json<{ erase_after: string }>(res);
}

async function expectPending(res: Response) {
  const p = await problem(res);
  expect([p.status, p.code]).toEqual([403, "ACCOUNT_PENDING_DELETION"]);
}

describe("sign-in during a deletion's grace period", () => {
  it("every way in is refused, and only after its proof", async () => {
    const u = await staffUser();
    const userId = u.session.user.id;
    const authenticator = await softAuthenticator();
    await e.DB.prepare(
      "INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, created_at) VALUES (?, ?, ?, ?, 0, ?)",
    )
      .bind(
        crypto.randomUUID(),
        userId,
        authenticator.credentialId,
        authenticator.publicKey,
        new Date().toISOString(),
      )
      .run();
    // Opened before the deletion: a phased challenge and a magic-link code.
    const started = await call("POST", "/api/v1/auth/login/start", {
      body: { email: u.email, password: u.password },
      ip: freshIp(),
    });
    expect(started.status).toBe(200);
    const { challenge } = await json<{ challenge: string }>(started);
    expect(
      (await call("POST", "/api/v1/auth/magic-link/request", { body: { email: u.email }, ip: freshIp() }))
        .status,
    ).toBe(202);
    let magicCode = "";
    for (let i = 0; i < 50 && !magicCode; i++) {
      magicCode = (await outbox(u.email)).find((m) => m.purpose === "magic_link")?.code ?? "";
      if (!magicCode) await new Promise((r) => setTimeout(r, 100));
    }
    expect(magicCode).not.toBe("");

    await deleteAccount(u.email, u.session);

    const oneStep = await call("POST", "/api/v1/auth/login", {
      body: { email: u.email, password: u.password, totp_code: await totpCode(u.secret, 1) },
      ip: freshIp(),
    });
    await expectPending(oneStep);
    await expectPending(
      await call("POST", "/api/v1/auth/login/start", {
        body: { email: u.email, password: u.password },
        ip: freshIp(),
      }),
    );
    const wrong = await problem(
      await call("POST", "/api/v1/auth/login/start", {
        body: { email: u.email, password: "wrong-password-42x" },
        ip: freshIp(),
      }),
    );
    expect([wrong.status, wrong.code]).toEqual([401, "INVALID_CREDENTIALS"]);

    const verify = await call("POST", "/api/v1/auth/login/mfa/verify", {
      body: { challenge, method: "totp", code: await totpCode(u.secret, 1) },
      ip: freshIp(),
    });
    expect(verify.status).not.toBe(200);
    const oldCode = await problem(
      await call("POST", "/api/v1/auth/magic-link/verify", {
        body: { email: u.email, code: magicCode },
        ip: freshIp(),
      }),
    );
    expect([oldCode.status, oldCode.code]).toEqual([401, "CODE_INVALID"]);

    const before = (await outbox(u.email)).filter((m) => m.purpose === "magic_link").length;
    expect(
      (await call("POST", "/api/v1/auth/magic-link/request", { body: { email: u.email }, ip: freshIp() }))
        .status,
    ).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    expect((await outbox(u.email)).filter((m) => m.purpose === "magic_link")).toHaveLength(before);

    const begin = await call("POST", "/api/v1/auth/login/passkey/begin", { body: {}, ip: freshIp() });
    const options = await json<{ publicKey: { challenge: string } }>(begin);
    const assertion = await authenticator.assert({
      challenge: options.publicKey.challenge,
      origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
      rpId: e.WEBAUTHN_RP_ID,
      counter: 1,
      userHandle: handleOf(userId),
    });
    await expectPending(
      await call("POST", "/api/v1/auth/login/passkey/finish", {
        body: { credential: assertion },
        ip: freshIp(),
      }),
    );

    const refresh = await problem(
      await call("POST", "/api/v1/auth/refresh", {
        body: { refresh_token: u.session.refresh_token },
        ip: freshIp(),
      }),
    );
    expect([refresh.status, refresh.code]).toEqual([401, "REFRESH_FAILED"]);
    const live = await e.DB.prepare(
      "SELECT COUNT(*) AS n FROM sessions WHERE user_id = ? AND revoked_at IS NULL",
    )
      .bind(userId)
      .first<{ n: number }>();
    expect(live!.n).toBe(0);
  });
});

describe("the erasing cron", () => {
  it("two runs at once past the grace erase once and tell the address once", async () => {
    const u = await staffUser();
    const { erase_after } = await deleteAccount(u.email, u.session);
    const run = (at: number) =>
      (worker as unknown as { scheduled: (o: object) => Promise<unknown> }).scheduled({
        cron: "0 * * * *",
        scheduledTime: new Date(at),
      });
    await run(Date.parse(erase_after) - 1000);
    expect(await latestCode(u.email, "sensitive_action")).toMatch(/^\d{6}$/);
    const kept = await e.DB.prepare("SELECT COUNT(*) AS n FROM totp_factors WHERE user_id = ?")
      .bind(u.session.user.id)
      .first<{ n: number }>();
    expect(kept!.n).toBe(1);

    await Promise.all([run(Date.parse(erase_after) + DAY), run(Date.parse(erase_after) + DAY)]);
    const left = await e.DB.prepare(
      `SELECT (SELECT COUNT(*) FROM totp_factors WHERE user_id = ?1) + (SELECT COUNT(*) FROM recovery_codes WHERE user_id = ?1)
            + (SELECT COUNT(*) FROM email_addresses WHERE user_id = ?1) AS n`,
    )
      .bind(u.session.user.id)
      .first<{ n: number }>();
    expect(left!.n).toBe(0);
    const erased = (await outbox(u.email)).filter((m) => m.subject === "Your account was deleted");
    expect(erased).toHaveLength(1);
    const row = await e.DB.prepare("SELECT erased_at FROM account_deletions WHERE user_id = ?")
      .bind(u.session.user.id)
      .first<{ erased_at: string | null }>();
    expect(row!.erased_at).not.toBeNull();
  });
});

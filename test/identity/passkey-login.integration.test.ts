import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  freshIp,
  json,
  problem,
  type SessionBody,
  softAuthenticator,
  staffUser,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

async function userWithPasskey(counter = 0) {
  const u = await staffUser();
  const authenticator = await softAuthenticator();
  await e.DB.prepare(
    "INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  )
    .bind(
      crypto.randomUUID(),
      u.session.user.id,
      authenticator.credentialId,
      authenticator.publicKey,
      counter,
      new Date().toISOString(),
    )
    .run();
  return { ...u, authenticator };
}

async function startAndSend(email: string, password: string) {
  const start = await json<{ challenge: string; methods: string[] }>(
    await call("POST", "/api/v1/auth/login/start", { body: { email, password }, ip: freshIp() }),
  );
  const send = await call("POST", "/api/v1/auth/login/mfa/send", {
    body: { challenge: start.challenge, method: "passkey" },
    ip: freshIp(),
  });
  return { start, send };
}

function verify(challenge: string, credential: unknown) {
  return call("POST", "/api/v1/auth/login/mfa/verify", {
    body: { challenge, method: "passkey", credential },
    ip: freshIp(),
  });
}

describe("phased login with a passkey", () => {
  it("send returns publicKey options (base64url without padding); a valid assertion issues a session", async () => {
    const u = await userWithPasskey();
    const { start, send } = await startAndSend(u.email, u.password);
    expect(start.methods).toContain("passkey");
    expect(send.status).toBe(200);
    const { publicKey } = await json<{
      publicKey: { challenge: string; rpId: string; allowCredentials: { id: string }[] };
    }>(send);
    expect(publicKey.challenge).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(publicKey.allowCredentials.map((c) => c.id)).toEqual([u.authenticator.credentialId]);
    expect(publicKey.rpId).toBe(e.WEBAUTHN_RP_ID);
    const credential = await u.authenticator.assert({
      challenge: publicKey.challenge,
      origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
      rpId: e.WEBAUTHN_RP_ID,
      counter: 1,
    });
    const res = await verify(start.challenge, credential);
    expect(res.status).toBe(200);
    expect((await json<SessionBody>(res)).user.id).toBe(u.session.user.id);
    const row = await e.DB.prepare("SELECT counter FROM passkeys WHERE credential_id = ?")
      .bind(u.authenticator.credentialId)
      .first<{ counter: number }>();
    expect(row!.counter).toBe(1);
  });

  it("a regressed signature counter is 401 PASSKEY_CLONE_SUSPECTED (and counts as a wrong attempt)", async () => {
    const u = await userWithPasskey(10);
    const { start, send } = await startAndSend(u.email, u.password);
    const { publicKey } = await json<{ publicKey: { challenge: string } }>(send);
    const credential = await u.authenticator.assert({
      challenge: publicKey.challenge,
      origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
      rpId: e.WEBAUTHN_RP_ID,
      counter: 5,
    });
    const p = await problem(await verify(start.challenge, credential));
    expect(p).toMatchObject({ status: 401, code: "PASSKEY_CLONE_SUSPECTED" });
    expect(p.body.details).toEqual({ attempts_remaining: 4 });
  });

  it("without the delivery step the ceremony is invalid (401 PASSKEY_CEREMONY_INVALID)", async () => {
    const u = await userWithPasskey();
    const start = await json<{ challenge: string }>(
      await call("POST", "/api/v1/auth/login/start", {
        body: { email: u.email, password: u.password },
        ip: freshIp(),
      }),
    );
    const credential = await u.authenticator.assert({
      challenge: "AAAA",
      origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
      rpId: e.WEBAUTHN_RP_ID,
      counter: 1,
    });
    expect(await problem(await verify(start.challenge, credential))).toMatchObject({
      status: 401,
      code: "PASSKEY_CEREMONY_INVALID",
    });
  });

  it("refuses an assertion over another challenge, from another origin, or by another account's passkey", async () => {
    const u = await userWithPasskey();
    const other = await userWithPasskey();
    const { start, send } = await startAndSend(u.email, u.password);
    const { publicKey } = await json<{ publicKey: { challenge: string } }>(send);
    const base = { origin: e.WEBAUTHN_ORIGIN.split(",")[0]!, rpId: e.WEBAUTHN_RP_ID, counter: 1 };
    const wrongChallenge = await u.authenticator.assert({ ...base, challenge: "c29tZXRoaW5nLWVsc2U" });
    const wrongOrigin = await u.authenticator.assert({
      ...base,
      challenge: publicKey.challenge,
      origin: "https://evil.example",
    });
    const foreign = await other.authenticator.assert({ ...base, challenge: publicKey.challenge });
    for (const credential of [wrongChallenge, wrongOrigin, foreign]) {
      expect((await problem(await verify(start.challenge, credential))).code).toBe("MFA_INVALID_CODE");
    }
  });
});

describe("phased login with SMS", () => {
  it("sends the code to the confirmed phone and accepts it", async () => {
    const u = await staffUser();
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    await e.DB.prepare("INSERT INTO phones (user_id, e164, verified_at, created_at) VALUES (?, ?, ?, ?)")
      .bind(u.session.user.id, phone, new Date().toISOString(), new Date().toISOString())
      .run();
    const start = await json<{ challenge: string; methods: string[] }>(
      await call("POST", "/api/v1/auth/login/start", {
        body: { email: u.email, password: u.password },
        ip: freshIp(),
      }),
    );
    expect(start.methods).toContain("sms");
    const sent = await call("POST", "/api/v1/auth/login/mfa/send", {
      body: { challenge: start.challenge, method: "sms" },
      ip: freshIp(),
    });
    expect(sent.status).toBe(202);
    expect(Object.keys(await json(sent))).toEqual(["expires_at"]);
    const { outbox } = await import("../support/identity-helpers");
    const [message] = await outbox(phone);
    expect(message).toMatchObject({ channel: "sms", purpose: "login_mfa" });
    const res = await call("POST", "/api/v1/auth/login/mfa/verify", {
      body: { challenge: start.challenge, method: "sms", code: message!.code },
      ip: freshIp(),
    });
    expect(res.status).toBe(200);
  });
});

describe("phased login lockout", () => {
  it("login/start answers 423 after 5 failures on the address", async () => {
    const u = await staffUser();
    for (let i = 0; i < 5; i++) {
      await call("POST", "/api/v1/auth/login/start", {
        body: { email: u.email, password: "wrong-password-x" },
        ip: freshIp(),
      });
    }
    const res = await call("POST", "/api/v1/auth/login/start", {
      body: { email: u.email, password: u.password },
      ip: freshIp(),
    });
    expect(res.status).toBe(423);
    expect(res.headers.get("retry-after")).toBeTruthy();
  });
});

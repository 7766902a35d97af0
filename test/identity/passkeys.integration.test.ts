import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  callWith,
  freshIp,
  json,
  latestCode,
  problem,
  signupVerified,
  softAuthenticator,
  staffUser,
  withStepUp,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

const BEGIN = "/api/v1/auth/mfa/passkey/register/begin";

/** Opens a registration ceremony as the owner does: every passkey costs the step-up (issue 31). */
function begin(token: string, primary: string) {
  return withStepUp(primary, "POST", BEGIN, { token, body: {} });
}

/** Registers a passkey (begin with the step-up code mailed to `primary`, then finish). */
async function register(token: string, primary: string, name?: string) {
  const authenticator = await softAuthenticator();
  const opened = await begin(token, primary);
  expect(opened.status).toBe(200);
  const { publicKey } = await json<{
    publicKey: { challenge: string; rp: { id: string }; user: { name: string } };
  }>(opened);
  const credential = await authenticator.attest({
    challenge: publicKey.challenge,
    origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
    rpId: e.WEBAUTHN_RP_ID,
  });
  const finish = await call("POST", "/api/v1/auth/mfa/passkey/register/finish", {
    token,
    body: { credential, name },
  });
  return { authenticator, credential, finish, publicKey };
}

describe("passkey registration", () => {
  it("begin returns options; finish stores the passkey (201) and it works for login", async () => {
    const u = await staffUser();
    const { finish, authenticator, publicKey } = await register(u.session.access_token, u.email, "laptop");
    expect(publicKey.rp.id).toBe(e.WEBAUTHN_RP_ID);
    expect(publicKey.user.name).toBe(u.email);
    expect(finish.status).toBe(201);
    expect(await json(finish)).toMatchObject({ name: "laptop" });
    const list = await json<{ items: { id: string }[] }>(
      await call("GET", "/api/v1/auth/mfa/passkey", { token: u.session.access_token }),
    );
    expect(list.items).toHaveLength(1);

    const start = await json<{ challenge: string; methods: string[] }>(
      await call("POST", "/api/v1/auth/login/start", {
        body: { email: u.email, password: u.password },
        ip: freshIp(),
      }),
    );
    expect(start.methods).toContain("passkey");
    const send = await json<{ publicKey: { challenge: string } }>(
      await call("POST", "/api/v1/auth/login/mfa/send", {
        body: { challenge: start.challenge, method: "passkey" },
        ip: freshIp(),
      }),
    );
    const assertion = await authenticator.assert({
      challenge: send.publicKey.challenge,
      origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
      rpId: e.WEBAUTHN_RP_ID,
      counter: 1,
    });
    const login = await call("POST", "/api/v1/auth/login/mfa/verify", {
      body: { challenge: start.challenge, method: "passkey", credential: assertion },
      ip: freshIp(),
    });
    expect(login.status).toBe(200);
  });

  it("finish without an open ceremony is 401 PASSKEY_CEREMONY_INVALID; a ceremony is single use", async () => {
    const { session, email } = await signupVerified();
    const t = session.access_token;
    const first = await register(t, email);
    expect(first.finish.status).toBe(201);
    const again = await call("POST", "/api/v1/auth/mfa/passkey/register/finish", {
      token: t,
      body: { credential: first.credential },
    });
    expect(await problem(again)).toMatchObject({ status: 401, code: "PASSKEY_CEREMONY_INVALID" });
  });

  it("a new begin invalidates the earlier ceremony", async () => {
    const { session, email } = await signupVerified();
    const t = session.access_token;
    const authenticator = await softAuthenticator();
    const a = await json<{ publicKey: { challenge: string } }>(await begin(t, email));
    expect((await begin(t, email)).status).toBe(200);
    const credential = await authenticator.attest({
      challenge: a.publicKey.challenge,
      origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
      rpId: e.WEBAUTHN_RP_ID,
    });
    expect(
      await problem(
        await call("POST", "/api/v1/auth/mfa/passkey/register/finish", { token: t, body: { credential } }),
      ),
    ).toMatchObject({ status: 401, code: "PASSKEY_INVALID" });
  });

  it("refuses a wrong origin (401 PASSKEY_INVALID), a missing credential (400) and a duplicate (409)", async () => {
    const a = await signupVerified();
    const b = await signupVerified();
    const authenticator = await softAuthenticator();
    const opened = await json<{ publicKey: { challenge: string } }>(
      await begin(a.session.access_token, a.email),
    );
    const evil = await authenticator.attest({
      challenge: opened.publicKey.challenge,
      origin: "https://evil.example",
      rpId: e.WEBAUTHN_RP_ID,
    });
    expect(
      await problem(
        await call("POST", "/api/v1/auth/mfa/passkey/register/finish", {
          token: a.session.access_token,
          body: { credential: evil },
        }),
      ),
    ).toMatchObject({ status: 401, code: "PASSKEY_INVALID" });
    expect(
      await problem(
        await call("POST", "/api/v1/auth/mfa/passkey/register/finish", {
          token: a.session.access_token,
          body: {},
        }),
      ),
    ).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    expect(
      (
        await call("POST", "/api/v1/auth/mfa/passkey/register/finish", {
          token: a.session.access_token,
          rawBody: "{oops",
        })
      ).status,
    ).toBe(400);
    // The same authenticator (same credential id) registered by a second account: 409.
    const ok = await json<{ publicKey: { challenge: string } }>(await begin(a.session.access_token, a.email));
    const cred = await authenticator.attest({
      challenge: ok.publicKey.challenge,
      origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
      rpId: e.WEBAUTHN_RP_ID,
    });
    expect(
      (
        await call("POST", "/api/v1/auth/mfa/passkey/register/finish", {
          token: a.session.access_token,
          body: { credential: cred },
        })
      ).status,
    ).toBe(201);
    const bBegin = await json<{ publicKey: { challenge: string } }>(
      await begin(b.session.access_token, b.email),
    );
    const dup = await authenticator.attest({
      challenge: bBegin.publicKey.challenge,
      origin: e.WEBAUTHN_ORIGIN.split(",")[0]!,
      rpId: e.WEBAUTHN_RP_ID,
    });
    expect(
      await problem(
        await call("POST", "/api/v1/auth/mfa/passkey/register/finish", {
          token: b.session.access_token,
          body: { credential: dup },
        }),
      ),
    ).toMatchObject({ status: 409, code: "PASSKEY_ALREADY_REGISTERED" });
  });

  it("409 PASSKEY_LIMIT_REACHED at 20 passkeys", async () => {
    const { session } = await signupVerified();
    const now = new Date().toISOString();
    await e.DB.batch(
      Array.from({ length: 20 }, (_, i) =>
        e.DB.prepare(
          "INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, created_at) VALUES (?, ?, ?, 'x', 0, ?)",
        ).bind(crypto.randomUUID(), session.user.id, `cred-${crypto.randomUUID()}-${i}`, now),
      ),
    );
    expect(
      await problem(
        await call("POST", "/api/v1/auth/mfa/passkey/register/begin", {
          token: session.access_token,
          body: {},
        }),
      ),
    ).toMatchObject({ status: 409, code: "PASSKEY_LIMIT_REACHED" });
  });

  it("answers 501 PASSKEY_DISABLED when passkeys are off", async () => {
    const { session } = await signupVerified();
    for (const [method, path] of [
      ["POST", "/api/v1/auth/mfa/passkey/register/begin"],
      ["GET", "/api/v1/auth/mfa/passkey"],
    ] as const) {
      expect(
        await problem(
          await callWith({ PASSKEYS_ENABLED: "false" }, method, path, {
            token: session.access_token,
            body: method === "POST" ? {} : undefined,
          }),
        ),
      ).toMatchObject({ status: 501, code: "PASSKEY_DISABLED" });
    }
  });
});

describe("DELETE /auth/mfa/passkey/{id} (step-up)", () => {
  it("step-up comes before any lookup: an unknown id also gets 428", async () => {
    const { session } = await signupVerified();
    expect(
      (
        await problem(
          await call("DELETE", "/api/v1/auth/mfa/passkey/01ARZ3NDEKTSV4RRFFQ69G5FAV", {
            token: session.access_token,
          }),
        )
      ).code,
    ).toBe("STEP_UP_REQUIRED");
  });

  it("removes with the code; another account's passkey is 404 PASSKEY_NOT_FOUND", async () => {
    const u = await staffUser();
    const other = await staffUser();
    await register(u.session.access_token, u.email);
    await register(other.session.access_token, other.email);
    const mine = (
      await json<{ items: { id: string }[] }>(
        await call("GET", "/api/v1/auth/mfa/passkey", { token: u.session.access_token }),
      )
    ).items[0]!.id;
    const theirs = (
      await json<{ items: { id: string }[] }>(
        await call("GET", "/api/v1/auth/mfa/passkey", { token: other.session.access_token }),
      )
    ).items[0]!.id;
    await call("DELETE", `/api/v1/auth/mfa/passkey/${theirs}`, { token: u.session.access_token });
    const code = await latestCode(u.email, "sensitive_action");
    expect(
      await problem(
        await call("DELETE", `/api/v1/auth/mfa/passkey/${theirs}`, {
          token: u.session.access_token,
          headers: { "x-step-up-code": code },
        }),
      ),
    ).toMatchObject({ status: 404, code: "PASSKEY_NOT_FOUND" });
    await call("DELETE", `/api/v1/auth/mfa/passkey/${mine}`, { token: u.session.access_token });
    const code2 = await latestCode(u.email, "sensitive_action");
    expect(
      (
        await call("DELETE", `/api/v1/auth/mfa/passkey/${mine}`, {
          token: u.session.access_token,
          headers: { "x-step-up-code": code2 },
        })
      ).status,
    ).toBe(204);
  });

  it("409 LAST_STRONG_FACTOR when no TOTP and no other passkey would remain", async () => {
    const { session, email } = await signupVerified();
    await register(session.access_token, email);
    const id = (
      await json<{ items: { id: string }[] }>(
        await call("GET", "/api/v1/auth/mfa/passkey", { token: session.access_token }),
      )
    ).items[0]!.id;
    await call("DELETE", `/api/v1/auth/mfa/passkey/${id}`, { token: session.access_token });
    const code = await latestCode(email, "sensitive_action");
    expect(
      await problem(
        await call("DELETE", `/api/v1/auth/mfa/passkey/${id}`, {
          token: session.access_token,
          headers: { "x-step-up-code": code },
        }),
      ),
    ).toMatchObject({ status: 409, code: "LAST_STRONG_FACTOR" });
  });
});

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  json,
  problem,
  type SessionBody,
  signupVerified,
  softAuthenticator,
  withStepUp,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;
const origin = () => e.WEBAUTHN_ORIGIN.split(",")[0]!;
const handleOf = (userId: string) =>
  btoa(userId).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");

async function insertPasskey(userId: string, counter = 0) {
  const authenticator = await softAuthenticator();
  await e.DB.prepare(
    "INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  )
    .bind(
      crypto.randomUUID(),
      userId,
      authenticator.credentialId,
      authenticator.publicKey,
      counter,
      new Date().toISOString(),
    )
    .run();
  return authenticator;
}

async function userWithPasskey(counter = 0) {
  const u = await signupVerified();
  const userId = u.session.user.id;
  return { ...u, userId, authenticator: await insertPasskey(userId, counter) };
}

async function begin(ip = freshIp()) {
  const res = await call("POST", "/api/v1/auth/login/passkey/begin", { body: {}, ip });
  expect(res.status).toBe(200);
  return (
    await json<{
      publicKey: { challenge: string; allowCredentials?: unknown[]; userVerification: string; rpId: string };
    }>(res)
  ).publicKey;
}

function finish(credential: unknown, extra: Record<string, unknown> = {}) {
  return call("POST", "/api/v1/auth/login/passkey/finish", { body: { credential, ...extra }, ip: freshIp() });
}

type Authenticator = Awaited<ReturnType<typeof softAuthenticator>>;
function assertion(
  a: Authenticator,
  challenge: string,
  userId: string,
  over: { counter?: number; flags?: number } = {},
) {
  return a.assert({
    challenge,
    origin: origin(),
    rpId: e.WEBAUTHN_RP_ID,
    counter: over.counter ?? 1,
    flags: over.flags,
    userHandle: handleOf(userId),
  });
}

async function lockPassword(email: string) {
  for (let i = 0; i < 12; i += 1) {
    const res = await call("POST", "/api/v1/auth/login/start", {
      body: { email, password: "wrong-password-x" },
      ip: freshIp(),
    });
    if (res.status === 423) return;
  }
  throw new Error("password never locked");
}

async function expectRefused(res: Response) {
  const p = await problem(res);
  expect(p.status).toBe(401);
  expect(p.code).toBe("PASSKEY_INVALID");
  return p.body;
}

describe("passkey-first sign-in", () => {
  it("begin answers options for a discoverable credential with user verification required", async () => {
    const publicKey = await begin();
    expect(publicKey.allowCredentials ?? []).toEqual([]);
    expect(publicKey.userVerification).toBe("required");
    expect(publicKey.rpId).toBe(e.WEBAUTHN_RP_ID);
    expect(publicKey.challenge).toMatch(/^[A-Za-z0-9_-]{16,}$/);
  });

  it("a verified assertion signs in (session, cookies, counter advanced)", async () => {
    const u = await userWithPasskey();
    const { challenge } = await begin();
    const res = await finish(await assertion(u.authenticator, challenge, u.userId), { trust_device: true });
    expect(res.status).toBe(200);
    const body = await json<SessionBody & { trusted_device: boolean }>(res);
    expect(body.user.id).toBe(u.userId);
    expect(body.trusted_device).toBe(true);
    expect(res.headers.get("set-cookie")).toContain("svc_session=");
    const me = await call("GET", "/api/v1/auth/sessions", { token: body.access_token });
    expect(me.status).toBe(200);
    const row = await e.DB.prepare("SELECT counter, last_used_at FROM passkeys WHERE credential_id = ?")
      .bind(u.authenticator.credentialId)
      .first<{ counter: number; last_used_at: string | null }>();
    expect(row).toMatchObject({ counter: 1 });
    expect(row!.last_used_at).not.toBeNull();
  });

  it("works while the password is locked", async () => {
    const u = await userWithPasskey();
    await lockPassword(u.email);
    const locked = await call("POST", "/api/v1/auth/login/start", {
      body: { email: u.email, password: u.password },
      ip: freshIp(),
    });
    expect(locked.status).toBe(423);
    const { challenge } = await begin();
    const res = await finish(await assertion(u.authenticator, challenge, u.userId));
    expect(res.status).toBe(200);
    expect((await json<SessionBody>(res)).user.id).toBe(u.userId);
  });

  it("without the UV flag the assertion is refused, and the challenge is spent", async () => {
    const u = await userWithPasskey();
    const { challenge } = await begin();
    await expectRefused(await finish(await assertion(u.authenticator, challenge, u.userId, { flags: 0x01 })));
    await expectRefused(await finish(await assertion(u.authenticator, challenge, u.userId, { counter: 2 })));
  });

  it("a challenge is good once: a replay is refused and of 2 concurrent finishes exactly one signs in", async () => {
    const u = await userWithPasskey();
    const first = await begin();
    const ok = await finish(await assertion(u.authenticator, first.challenge, u.userId, { counter: 1 }));
    expect(ok.status).toBe(200);
    await expectRefused(
      await finish(await assertion(u.authenticator, first.challenge, u.userId, { counter: 2 })),
    );

    const second = await begin();
    const [a, b] = await Promise.all([
      assertion(u.authenticator, second.challenge, u.userId, { counter: 3 }),
      assertion(u.authenticator, second.challenge, u.userId, { counter: 4 }),
    ]);
    const answers = await Promise.all([finish(a), finish(b)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
    const sessions = await e.DB.prepare(
      "SELECT COUNT(*) AS n FROM sessions WHERE user_id = ? AND auth_method = 'passkey'",
    )
      .bind(u.userId)
      .first<{ n: number }>();
    expect(sessions!.n).toBe(2);
  });

  it("a regressed signature counter is refused", async () => {
    const u = await userWithPasskey(10);
    const { challenge } = await begin();
    await expectRefused(await finish(await assertion(u.authenticator, challenge, u.userId, { counter: 5 })));
    const row = await e.DB.prepare("SELECT counter FROM passkeys WHERE credential_id = ?")
      .bind(u.authenticator.credentialId)
      .first<{ counter: number }>();
    expect(row!.counter).toBe(10);
  });

  it("unknown credential, wrong signature, wrong origin, unknown challenge and foreign user handle answer one body", async () => {
    const u = await userWithPasskey();
    const other = await userWithPasskey();
    const stranger = await softAuthenticator();
    const bodies = [];
    let c = await begin();
    bodies.push(await expectRefused(await finish(await assertion(stranger, c.challenge, u.userId))));
    c = await begin();
    const forged = await assertion(u.authenticator, c.challenge, u.userId);
    const otherSig = await assertion(other.authenticator, c.challenge, other.userId);
    bodies.push(
      await expectRefused(
        await finish({ ...forged, response: { ...forged.response, signature: otherSig.response.signature } }),
      ),
    );
    c = await begin();
    bodies.push(
      await expectRefused(
        await finish(
          await u.authenticator.assert({
            challenge: c.challenge,
            origin: "https://evil.example",
            rpId: e.WEBAUTHN_RP_ID,
            counter: 1,
          }),
        ),
      ),
    );
    bodies.push(
      await expectRefused(
        await finish(await assertion(u.authenticator, "bm90LWEtc2VydmVyLWNoYWxsZW5nZQ", u.userId)),
      ),
    );
    c = await begin();
    const foreignHandle = await u.authenticator.assert({
      challenge: c.challenge,
      origin: origin(),
      rpId: e.WEBAUTHN_RP_ID,
      counter: 1,
      userHandle: handleOf(other.userId),
    });
    bodies.push(await expectRefused(await finish(foreignHandle)));
    bodies.push(await expectRefused(await finish({ id: "x", rawId: "x", type: "public-key", response: {} })));
    const strip = (b: Record<string, unknown>) => ({
      ...b,
      instance: undefined,
      request_id: undefined,
      trace_id: undefined,
    });
    for (const b of bodies) expect(strip(b as never)).toEqual(strip(bodies[0] as never));
  });

  it("a missing credential is 400; unreadable JSON is 400", async () => {
    expect(
      (await problem(await call("POST", "/api/v1/auth/login/passkey/finish", { body: {}, ip: freshIp() })))
        .status,
    ).toBe(400);
    expect(
      (await call("POST", "/api/v1/auth/login/passkey/finish", { rawBody: "{", ip: freshIp() })).status,
    ).toBe(400);
  });

  it("an account whose address is not verified gets 403 EMAIL_NOT_VERIFIED, and no session", async () => {
    const email = freshEmail("pending");
    const signup = await call("POST", "/api/v1/auth/signup", {
      body: { email, password: GOOD_PASSWORD },
      ip: freshIp(),
    });
    expect(signup.status).toBe(202);
    const row = await e.DB.prepare("SELECT user_id FROM email_addresses WHERE address = ?")
      .bind(email)
      .first<{ user_id: string }>();
    const authenticator = await insertPasskey(row!.user_id);
    const { challenge } = await begin();
    const p = await problem(await finish(await assertion(authenticator, challenge, row!.user_id)));
    expect(p).toMatchObject({ status: 403, code: "EMAIL_NOT_VERIFIED" });
    const n = await e.DB.prepare("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?")
      .bind(row!.user_id)
      .first<{ n: number }>();
    expect(n!.n).toBe(0);
  });

  it("begin and finish spend the per-IP login quota (429 past it)", async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 62; i += 1) {
      statuses.push((await call("POST", "/api/v1/auth/login/passkey/begin", { body: {}, ip })).status);
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(60)).toEqual([429, 429]);
  });
});

describe("registration records whether a passkey can sign in alone (credProps)", () => {
  async function register(owner: { email: string; session: SessionBody }, credProps?: { rk: boolean }) {
    const token = owner.session.access_token;
    const authenticator = await softAuthenticator();
    const begin = await withStepUp(owner.email, "POST", "/api/v1/auth/mfa/passkey/register/begin", {
      token,
      body: {},
    });
    expect(begin.status).toBe(200);
    const { publicKey } = await json<{
      publicKey: {
        challenge: string;
        extensions?: { credProps?: boolean };
        authenticatorSelection?: { residentKey?: string };
      };
    }>(begin);
    expect(publicKey.extensions?.credProps).toBe(true);
    expect(publicKey.authenticatorSelection?.residentKey).toBe("preferred");
    const credential = await authenticator.attest({
      challenge: publicKey.challenge,
      origin: origin(),
      rpId: e.WEBAUTHN_RP_ID,
      credProps,
    });
    const finish = await call("POST", "/api/v1/auth/mfa/passkey/register/finish", {
      token,
      body: { credential },
    });
    expect(finish.status).toBe(201);
    return { authenticator, created: await json<{ id: string; discoverable: boolean | null }>(finish) };
  }

  it("rk true, rk false and not reported are listed as true, false and null", async () => {
    const u = await signupVerified();
    const token = u.session.access_token;
    const yes = await register(u, { rk: true });
    expect(yes.created.discoverable).toBe(true);
    const list = await json<{ items: { id: string; discoverable: boolean | null }[] }>(
      await call("GET", "/api/v1/auth/mfa/passkey", { token }),
    );
    expect(list.items.find((i) => i.id === yes.created.id)?.discoverable).toBe(true);

    const other = await signupVerified();
    const no = await register(other, { rk: false });
    expect(no.created.discoverable).toBe(false);
    const third = await signupVerified();
    const unknown = await register(third);
    expect(unknown.created.discoverable).toBeNull();
    const stored = await e.DB.prepare("SELECT discoverable FROM passkeys WHERE id IN (?, ?, ?) ORDER BY id")
      .bind(yes.created.id, no.created.id, unknown.created.id)
      .all<{ discoverable: number | null }>();
    expect(stored.results.map((r) => r.discoverable).sort()).toEqual([0, 1, null].sort());
  });

  it("a passkey registered through the API signs in alone", async () => {
    const u = await signupVerified();
    const { authenticator } = await register(u, { rk: true });
    const { challenge } = await begin();
    const res = await finish(await assertion(authenticator, challenge, u.session.user.id));
    expect(res.status).toBe(200);
    expect((await json<SessionBody>(res)).user.id).toBe(u.session.user.id);
  });
});

describe("the hosted pages offer passkey-first sign-in", () => {
  it("the sign-in page has the button, its script calls the documented operations, and no inline script", async () => {
    const page = await call("GET", "/auth/sign-in");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="passkey-sign-in"');
    expect(html).toContain("Sign in with a passkey");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const js = await (await call("GET", "/auth/assets/sign-in.js")).text();
    expect(js).toContain('"/login/passkey/begin"');
    expect(js).toContain('"/login/passkey/finish"');
    const doc = await json<{ paths: Record<string, Record<string, unknown>> }>(
      await call("GET", "/openapi.json"),
    );
    expect(doc.paths["/api/v1/auth/login/passkey/begin"]?.post).toBeDefined();
    expect(doc.paths["/api/v1/auth/login/passkey/finish"]?.post).toBeDefined();
  });

  it("the account page script shows which passkeys sign in alone", async () => {
    const js = await (await call("GET", "/auth/assets/account.js")).text();
    expect(js).toContain("item.discoverable");
    const html = await (await call("GET", "/auth/account")).text();
    expect(html).toContain("Signs in alone");
  });
});

describe("TOTP enrollment QR code (server-rendered SVG)", () => {
  it("answers the pending enrollment's QR only to its owner, and nothing without one", async () => {
    const u = await signupVerified();
    const token = u.session.access_token;
    const none = await problem(await call("GET", "/api/v1/auth/mfa/totp/qr", { token }));
    expect(none).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect((await call("GET", "/api/v1/auth/mfa/totp/qr")).status).toBe(401);
    const enroll = await call("POST", "/api/v1/auth/mfa/totp", { token });
    expect(enroll.status).toBe(200);
    const res = await call("GET", "/api/v1/auth/mfa/totp/qr", { token });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("no-store");
    const { svg } = await json<{ svg: string }>(res);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).not.toMatch(/<script|on[a-z]+=|href|@/i);
    const other = await signupVerified();
    const theirs = await problem(
      await call("GET", "/api/v1/auth/mfa/totp/qr", { token: other.session.access_token }),
    );
    expect(theirs).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("the account page shows the QR image and groups the secret in blocks of 4", async () => {
    const html = await (await call("GET", "/auth/account")).text();
    expect(html).toContain('id="totp-qr"');
    const js = await (await call("GET", "/auth/assets/account.js")).text();
    expect(js).toContain('"/mfa/totp/qr"');
    expect(js).toContain('replace(/(.{4})(?=.)/g, "$1 ")');
  });
});

describe("the account page changes the password with the spec's step-up", () => {
  it("has the form; its script posts /password/change through the step-up prompt with X-Step-Up-Code", async () => {
    const html = await (await call("GET", "/auth/account")).text();
    expect(html).toContain('id="password-change"');
    expect(html).toContain('autocomplete="current-password"');
    expect(html).toContain('autocomplete="new-password"');
    const js = await (await call("GET", "/auth/assets/account.js")).text();
    expect(js).toContain('call("POST", "/password/change", body, stepUpHeader(code))');
    expect(js).toContain('withStepUp("password"');
    const doc = await json<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      await call("GET", "/openapi.json"),
    );
    expect(doc.paths["/api/v1/auth/password/change"]?.post?.responses["428"]).toBeDefined();
  });
});

/**
 * CSRF on the API the hosted pages use. Identity authenticates by Bearer everywhere except
 * `POST /auth/refresh`, which also reads the `svc_refresh` cookie: a cookie-borne refresh from another
 * origin is refused (403 FORBIDDEN) and rotates nothing; a login cannot be started by a cross-site form
 * (a form can only send text/plain, urlencoded or multipart bodies; the API takes JSON only: 415).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  freshIp,
  GOOD_PASSWORD,
  ORIGIN,
  problem,
  type SessionBody,
  signupVerified,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

function refreshWithCookie(token: string, headers: Record<string, string>) {
  return call("POST", "/api/v1/auth/refresh", {
    headers: { cookie: `svc_refresh=${token}`, ...headers },
    ip: freshIp(),
  });
}

async function revokedReason(sessionId: string) {
  const row = await e.DB.prepare("SELECT revoked_reason FROM sessions WHERE id = ?")
    .bind(sessionId)
    .first<{ revoked_reason: string | null }>();
  return row?.revoked_reason ?? null;
}

describe("POST /auth/refresh with the svc_refresh cookie", () => {
  it.each([
    ["a foreign Origin", { origin: "https://evil.example" }],
    ["an opaque Origin", { origin: "null" }],
    ["a sibling subdomain (Sec-Fetch-Site same-site)", { "sec-fetch-site": "same-site" }],
    ["Sec-Fetch-Site cross-site", { "sec-fetch-site": "cross-site", origin: ORIGIN }],
    ["the same host on another scheme", { origin: ORIGIN.replace("http:", "https:") }],
  ])("refuses %s with 403 FORBIDDEN and rotates nothing", async (_name, headers) => {
    const { session } = await signupVerified();
    const res = await refreshWithCookie(session.refresh_token, headers);
    expect(await problem(res)).toMatchObject({ status: 403, code: "FORBIDDEN" });
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await revokedReason(session.session_id)).toBeNull();
    // The session is intact: its own page can still refresh it.
    const own = await refreshWithCookie(session.refresh_token, {
      origin: ORIGIN,
      "sec-fetch-site": "same-origin",
    });
    expect(own.status).toBe(200);
  });

  it("serves the page's own origin (Origin and Sec-Fetch-Site same-origin)", async () => {
    const { session } = await signupVerified();
    const res = await refreshWithCookie(session.refresh_token, {
      origin: ORIGIN,
      "sec-fetch-site": "same-origin",
    });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("svc_refresh="))).toBe(true);
  });

  it("leaves server callers alone: a body token with or without an Origin, a cookie without one", async () => {
    const { session } = await signupVerified();
    const plain = await call("POST", "/api/v1/auth/refresh", {
      body: { refresh_token: session.refresh_token },
      ip: freshIp(),
    });
    expect(plain.status).toBe(200);
    const next = (await plain.json()) as SessionBody;
    // A page elsewhere holding the token in the body proves it has it: no cookie is involved.
    const fromElsewhere = await call("POST", "/api/v1/auth/refresh", {
      body: { refresh_token: next.refresh_token },
      headers: { origin: "https://app.example" },
      ip: freshIp(),
    });
    expect(fromElsewhere.status).toBe(200);
    const last = (await fromElsewhere.json()) as SessionBody;
    expect((await refreshWithCookie(last.refresh_token, {})).status).toBe(200);
  });
});

describe("POST /auth/login/start from a cross-site form", () => {
  it.each([
    ["text/plain", (email: string) => JSON.stringify({ email, password: GOOD_PASSWORD })],
    [
      "application/x-www-form-urlencoded",
      (email: string) => new URLSearchParams({ email, password: GOOD_PASSWORD }).toString(),
    ],
    [
      "multipart/form-data; boundary=x",
      (email: string) => `--x\r\ncontent-disposition: form-data; name="email"\r\n\r\n${email}\r\n--x--\r\n`,
    ],
  ])("refuses a %s body with 415 and opens no challenge", async (type, body) => {
    const { email } = await signupVerified();
    const res = await call("POST", "/api/v1/auth/login/start", {
      rawBody: body(email),
      headers: { "content-type": type, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      ip: freshIp(),
    });
    expect(await problem(res)).toMatchObject({ status: 415, code: "UNSUPPORTED_MEDIA_TYPE" });
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});

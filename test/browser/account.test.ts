/**
 * The hosted account page in a real Chromium against the whole platform: a browser signed in by the
 * signup + e-mail confirmation API (so the HttpOnly `svc_refresh` cookie lands in it) opens
 * /auth/account on the identity host and manages its addresses, TOTP, recovery codes, passkeys (Chromium's
 * virtual authenticator) and sessions, through the step-up prompts the spec asks for. Codes come from
 * the dev outbox. Every journey ends with no CSP refusal and no script error on the page.
 */
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import * as OTPAuth from "otpauth";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { root } from "../../scripts/workers.mjs";
import {
  browserPerTest,
  freshEmail,
  newCode,
  newContext,
  platform,
  screenshot,
  sent,
  signUpInPage,
  virtualAuthenticator,
  watchPageErrors,
} from "../support/browser";

const PASSWORD = "correct-horse-battery-staple-account-42";

const browser = browserPerTest();

const identity = () => platform().urls.identity;
/** A wrong code for sure: one more than the right one. */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

interface Signed {
  context: BrowserContext;
  page: Page;
  errors: string[];
  email: string;
  /** The Bearer the page last sent (to replay what the page did through the API). */
  bearer: () => string;
}

/**
 * A browser whose cookie jar holds a session: signup and e-mail confirmation called from inside a page
 * of the identity origin, then /auth/account opened.
 */
async function signedIn(tag: string): Promise<Signed> {
  const context = await newContext(browser());
  const page = await context.newPage();
  const errors = watchPageErrors(page);
  let bearer = "";
  page.on("request", (req) => {
    const auth = req.headers().authorization;
    if (auth?.startsWith("Bearer ")) bearer = auth.slice(7);
  });
  const email = freshEmail(tag);
  await signUpInPage(page, email, PASSWORD);
  await page.goto(`${identity()}/auth/account`);
  await page.locator("#account").waitFor({ state: "visible" });
  await expect.poll(() => page.locator("#whoami").textContent()).toBe(email);
  return { context, page, errors, email, bearer: () => bearer };
}

const status = (page: Page) => page.locator("#status");

/** The live region says `pattern` as a success (polite, no alert role). */
async function announcedOk(page: Page, pattern: RegExp) {
  await expect
    .poll(async () => (await status(page).textContent()) ?? "", { timeout: 15_000 })
    .toMatch(pattern);
  expect(await status(page).getAttribute("role")).toBeNull();
}

/** The live region says `pattern` as an error: role=alert, so screen readers interrupt with it. */
async function announcedError(page: Page, pattern: RegExp) {
  await expect
    .poll(
      async () =>
        (await page
          .getByRole("alert")
          .textContent()
          .catch(() => "")) ?? "",
      { timeout: 15_000 },
    )
    .toMatch(pattern);
  expect(await status(page).getAttribute("class")).toContain("error");
}

/** The step-up prompt opens in `section`, naming the masked address; returns after it is visible. */
async function stepUpPrompt(page: Page, section: string, email: string) {
  const form = page.locator(`#${section} #stepup`);
  await form.waitFor({ state: "visible" });
  const masked = (await page.locator("#stepup-sent").textContent()) ?? "";
  expect(masked).not.toBe(email);
  expect(masked).toContain("@");
  expect(masked).toContain("*");
  // Focus went to the code field.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("f-stepup-code");
}

async function enterStepUp(page: Page, code: string) {
  await page.getByLabel("Confirmation code").fill(code);
  await page.locator("#stepup").getByRole("button", { name: "Confirm" }).click();
}

/**
 * Clicks the button `name`, whose action asks for the step-up: the prompt opens in `section`
 * (stepUpPrompt's checks) and the code this click mailed to the primary `email` is entered.
 */
async function confirmWithStepUp(page: Page, section: string, email: string, name: string) {
  const before = await sent(email, "sensitive_action");
  await page.getByRole("button", { name }).click();
  await stepUpPrompt(page, section, email);
  await enterStepUp(page, await newCode(email, "sensitive_action", before));
}

async function api(
  method: string,
  p: string,
  token: string,
  body?: unknown,
  ip = "203.0.113.9",
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${identity()}/api/v1/auth${p}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      "cf-connecting-ip": ip,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** A second session of the account, made outside the browser (magic link from "another device"). */
async function otherSession(email: string, ip: string) {
  const before = await sent(email, "magic_link");
  const headers = {
    "content-type": "application/json",
    "cf-connecting-ip": ip,
    "user-agent": "node-other-device",
  };
  const req = await fetch(`${identity()}/api/v1/auth/magic-link/request`, {
    method: "POST",
    headers,
    body: JSON.stringify({ email }),
  });
  expect(req.status).toBe(202);
  const code = await newCode(email, "magic_link", before);
  const res = await fetch(`${identity()}/api/v1/auth/magic-link/verify`, {
    method: "POST",
    headers,
    body: JSON.stringify({ email, code }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; session_id: string };
}

const sessionRows = (page: Page) => page.locator("#session-table tbody tr");

describe("account page: two-factor", () => {
  it("enrolls TOTP (a wrong code announced), shows the recovery codes once, regenerates and removes with step-up", async () => {
    const { page, errors, email } = await signedIn("totp");
    await screenshot(page, "account-signed-in");
    await expect.poll(() => page.locator("#totp-state").textContent()).toMatch(/^Off/);

    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    await page.locator("#totp-enroll").waitFor({ state: "visible" });
    // Shown in blocks of four for typing; the secret itself is the blocks joined.
    const shown = ((await page.locator("#totp-secret").textContent()) ?? "").trim();
    expect(shown).toMatch(/^[A-Z2-7=]{1,4}( [A-Z2-7=]{1,4})*$/);
    const secret = shown.replace(/\s+/g, "");
    expect(secret).toMatch(/^[A-Z2-7]+=*$/);
    expect(await page.locator("#totp-uri").textContent()).toMatch(/^otpauth:\/\/totp\//);
    // The QR code: the server's SVG (GET /api/v1/auth/mfa/totp/qr), drawn by Chromium.
    const qr = page.locator("#totp-qr");
    await qr.waitFor({ state: "visible" });
    expect(await qr.getAttribute("src")).toMatch(/^data:image\/svg\+xml/);
    await expect
      .poll(() =>
        qr.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth),
      )
      .toBeGreaterThan(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("f-totp-code");
    await screenshot(page, "account-totp-enroll");
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });

    await page.getByLabel("Code from the authenticator app").fill(wrong(totp.generate()));
    await page.getByRole("button", { name: "Turn on" }).click();
    await announcedError(page, /not right/);

    await page.getByLabel("Code from the authenticator app").fill(totp.generate());
    await page.getByRole("button", { name: "Turn on" }).click();
    await announcedOk(page, /authenticator app is on.*recovery codes/i);
    await page.locator("#recovery-shown").waitFor({ state: "visible" });
    const first = await page.locator("#recovery-codes code").allTextContents();
    expect(first).toHaveLength(10);
    for (const c of first) expect(c).toMatch(/^[A-Z0-9]{5}-[A-Z0-9]{5}$/);
    expect(await page.locator("#recovery-shown .warning").textContent()).toMatch(/shown only this once/);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("recovery-title");
    expect(await page.locator("#totp-state").textContent()).toMatch(/^On/);
    expect(await page.locator("#recovery-state").textContent()).toMatch(/10 unused recovery codes/);
    await screenshot(page, "account-recovery-codes");

    await page.getByRole("button", { name: "I have saved them" }).click();
    expect(await page.locator("#recovery-codes code").count()).toBe(0);
    expect(await page.locator("#recovery-shown").isHidden()).toBe(true);

    // New recovery codes need step-up: a code to the primary address, a wrong one announced first.
    let before = await sent(email, "sensitive_action");
    await page.getByRole("button", { name: "Generate new recovery codes" }).click();
    await stepUpPrompt(page, "two-factor", email);
    await screenshot(page, "account-step-up");
    const regenerate = await newCode(email, "sensitive_action", before);
    await enterStepUp(page, wrong(regenerate));
    await announcedError(page, /not right/);
    await page.locator("#two-factor #stepup").waitFor({ state: "visible" });
    await enterStepUp(page, regenerate);
    await announcedOk(page, /New recovery codes generated/);
    const second = await page.locator("#recovery-codes code").allTextContents();
    expect(second).toHaveLength(10);
    expect(second.filter((c) => first.includes(c))).toEqual([]);
    await page.getByRole("button", { name: "I have saved them" }).click();

    // Removing the authenticator app: step-up; cancelling changes nothing.
    before = await sent(email, "sensitive_action");
    await page.getByRole("button", { name: "Remove the authenticator app" }).click();
    await stepUpPrompt(page, "two-factor", email);
    await page.locator("#stepup").getByRole("button", { name: "Cancel" }).click();
    await announcedOk(page, /Cancelled. Nothing was changed/);
    expect(await page.locator("#totp-state").textContent()).toMatch(/^On/);
    await page.getByRole("button", { name: "Remove the authenticator app" }).click();
    await stepUpPrompt(page, "two-factor", email);
    const remove = await newCode(email, "sensitive_action", before + 1);
    await enterStepUp(page, remove);
    await announcedOk(page, /authenticator app was removed/);
    expect(await page.locator("#totp-state").textContent()).toMatch(/^Off/);
    expect(await page.getByRole("button", { name: "Set up an authenticator app" }).isVisible()).toBe(true);

    // Signing out of this session leaves for sign-in; the account page then sends there too.
    await page.locator(".whoami").getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((url) => url.pathname === "/auth/sign-in");
    await page.goto(`${identity()}/auth/account`);
    await page.waitForURL((url) => url.pathname === "/auth/sign-in");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/auth/account");
    expect(errors).toEqual([]);
  });
});

// ---------- a `none` attestation of an existing credential, built in Node ----------

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

function cborBytes(bytes: Uint8Array): Buffer {
  const n = bytes.length;
  const head = n < 24 ? [0x40 + n] : n < 256 ? [0x58, n] : [0x59, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from(head), bytes]);
}
const cborText = (t: string) => Buffer.concat([Buffer.from([0x60 + t.length]), Buffer.from(t)]);

/**
 * What an authenticator holding `credential` (its id and key, as Chromium's virtual authenticator reports
 * them) would answer to navigator.credentials.create for `challenge`: the same credential,
 * attested afresh, so the server's signature and challenge checks pass and only its uniqueness rule is left.
 */
function attestAgain(
  credential: { credentialId: string; privateKey: string },
  challenge: string,
  origin: string,
) {
  const privateKey = createPrivateKey({
    key: Buffer.from(credential.privateKey, "base64"),
    format: "der",
    type: "pkcs8",
  });
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  const rawId = Buffer.from(credential.credentialId, "base64");
  // COSE_Key: Chromium's authenticator picks Ed25519 (the server lists EdDSA first) or P-256.
  const cose =
    jwk.kty === "OKP"
      ? Buffer.concat([
          Buffer.from([0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20]),
          Buffer.from(jwk.x!, "base64url"),
        ])
      : Buffer.concat([
          Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]),
          Buffer.from(jwk.x!, "base64url"),
          Buffer.from([0x22, 0x58, 0x20]),
          Buffer.from(jwk.y!, "base64url"),
        ]);
  const authData = Buffer.concat([
    createHash("sha256").update("localhost").digest(),
    Buffer.from([0x45, 0, 0, 0, 9]),
    Buffer.alloc(16),
    Buffer.from([rawId.length >> 8, rawId.length & 0xff]),
    rawId,
    cose,
  ]);
  const attestationObject = Buffer.concat([
    Buffer.from([0xa3]),
    cborText("fmt"),
    cborText("none"),
    cborText("attStmt"),
    Buffer.from([0xa0]),
    cborText("authData"),
    cborBytes(authData),
  ]);
  const clientData = Buffer.from(
    JSON.stringify({ type: "webauthn.create", challenge, origin, crossOrigin: false }),
  );
  return {
    id: b64url(rawId),
    rawId: b64url(rawId),
    type: "public-key",
    response: {
      clientDataJSON: b64url(clientData),
      attestationObject: b64url(attestationObject),
      transports: ["internal"],
    },
    clientExtensionResults: {},
  };
}

describe("account page: passkeys", () => {
  it("registers a passkey with the virtual authenticator; the same credential is refused again by the browser and by the server", async () => {
    const { context, page, errors, email, bearer } = await signedIn("passkey");
    const { cdp, authenticatorId } = await virtualAuthenticator(context, page);
    let finishBody: string | null = null;
    page.on("request", (req) => {
      if (req.url().endsWith("/api/v1/auth/mfa/passkey/register/finish")) finishBody = req.postData();
    });

    expect(await page.locator("#passkey-empty").textContent()).toBe("No passkeys yet.");
    await page.getByLabel("Name for the new passkey (optional)").fill("Test laptop");
    // The account has no factor, and still the first passkey costs the step-up (issue 31: a passkey
    // signs in alone): the page asks for the code mailed to the primary and repeats the call with it.
    await confirmWithStepUp(page, "passkeys", email, "Add a passkey");
    await announcedOk(page, /Passkey added: Test laptop/);
    await expect
      .poll(() => page.locator("#passkey-table tbody th").allTextContents())
      .toEqual(["Test laptop"]);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("passkeys-title");
    await screenshot(page, "account-passkeys");

    // The page's own finish body, replayed at once: its ceremony is spent (401), nothing registered.
    expect(finishBody).not.toBeNull();
    const replayed = await api("POST", "/mfa/passkey/register/finish", bearer(), JSON.parse(finishBody!));
    expect(replayed.status).toBe(401);
    expect(replayed.body.code).toBe("PASSKEY_CEREMONY_INVALID");
    // (a) The same authenticator again on the page: the step-up first (the code mailed to the primary);
    // then excludeCredentials makes Chromium refuse, and the page says so.
    await confirmWithStepUp(page, "passkeys", email, "Add a passkey");
    await announcedError(page, /already holds a passkey for your account/);
    expect(await page.locator("#passkey-table tbody tr").count()).toBe(1);

    // (b) The server: the same credential (its id and key, from the authenticator) attested for a new
    // ceremony is refused with the spec's 409.
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials).toHaveLength(1);
    const beforeBegin = await sent(email, "sensitive_action");
    expect((await api("POST", "/mfa/passkey/register/begin", bearer(), {})).status).toBe(428);
    const stepUpCode = await newCode(email, "sensitive_action", beforeBegin);
    const begin = await api("POST", "/mfa/passkey/register/begin", bearer(), {}, undefined, {
      "x-step-up-code": stepUpCode,
    });
    expect(begin.status).toBe(200);
    const challenge = (begin.body.publicKey as { challenge: string }).challenge;
    const again = await api("POST", "/mfa/passkey/register/finish", bearer(), {
      credential: attestAgain(credentials[0]!, challenge, identity()),
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("PASSKEY_ALREADY_REGISTERED");
    // (The attestation passed the challenge, origin and signature checks: those refuse with 401.)
    await page.reload();
    await page.locator("#account").waitFor({ state: "visible" });
    expect(await page.locator("#passkey-table tbody tr").count()).toBe(1);
    expect(errors).toEqual([]);
  });

  // An account of its own: each step-up mails a code, and an account gets 5 in 10 minutes.
  it("removes a passkey with the step-up, never the only strong factor", async () => {
    const { context, page, errors, email } = await signedIn("passkey-remove");
    const { cdp, authenticatorId } = await virtualAuthenticator(context, page);
    await page.getByLabel("Name for the new passkey (optional)").fill("Test laptop");
    await confirmWithStepUp(page, "passkeys", email, "Add a passkey");
    await announcedOk(page, /Passkey added: Test laptop/);

    // The only strong factor cannot be removed: step-up first (the spec's order), then 409 explained.
    await confirmWithStepUp(page, "passkeys", email, "Remove passkey Test laptop");
    await announcedError(page, /only strong second factor/);
    expect(await page.locator("#passkey-table tbody tr").count()).toBe(1);

    // With a second passkey (another authenticator), the first one goes: step-up, then removed.
    await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
    await virtualAuthenticator(context, page, "usb", cdp);
    await page.getByLabel("Name for the new passkey (optional)").fill("Security key");
    await confirmWithStepUp(page, "passkeys", email, "Add a passkey");
    await announcedOk(page, /Passkey added: Security key/);
    await confirmWithStepUp(page, "passkeys", email, "Remove passkey Test laptop");
    await announcedOk(page, /Removed passkey Test laptop/);
    expect(await page.locator("#passkey-table tbody th").allTextContents()).toEqual(["Security key"]);
    expect(errors).toEqual([]);
  });
});

describe("account page: e-mail addresses", () => {
  it("adds an address, verifies it with the mailed code, makes it primary through step-up and removes the old one", async () => {
    const { page, errors, email, bearer } = await signedIn("emails");
    const rows = () => page.locator("#email-table tbody tr");
    expect(await rows().count()).toBe(1);
    expect(await page.locator("#email-nudge").textContent()).toMatch(/Add a second address/);

    const added = freshEmail("second");
    await page.getByLabel("Add an e-mail address").fill(added);
    await page.getByRole("button", { name: "Add address" }).click();
    await announcedOk(page, /We sent a code to/);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("f-email-code");
    expect(await page.locator(`tr[data-email="${added}"]`).textContent()).toContain("Pending verification");
    const code = await newCode(added, "email_add", 0);
    await page.getByLabel("Code from the e-mail").fill(wrong(code));
    await page.getByRole("button", { name: "Verify address" }).click();
    await announcedError(page, /not right/);
    await page.getByLabel("Code from the e-mail").fill(code);
    await page.getByRole("button", { name: "Verify address" }).click();
    await announcedOk(page, new RegExp(`${added.replace(/[.+]/g, "\\$&")} is verified`));
    expect(await page.locator(`tr[data-email="${added}"]`).textContent()).toContain("Verified");

    // The same address again: the spec's 409, explained.
    await page.getByLabel("Add an e-mail address").fill(added);
    await page.getByRole("button", { name: "Add address" }).click();
    await announcedError(page, /already on your account/);

    // The primary cannot be removed: it has no Remove button at all.
    expect(await page.getByRole("button", { name: `Remove ${email}` }).count()).toBe(0);

    // Make primary: a code to the CURRENT primary, prompted with its masked form.
    const before = await sent(email, "sensitive_action");
    await page.getByRole("button", { name: `Make ${added} primary` }).click();
    await stepUpPrompt(page, "emails", email);
    await screenshot(page, "account-email-step-up");
    await enterStepUp(page, await newCode(email, "sensitive_action", before));
    await announcedOk(page, /is now your primary address/);
    expect(await page.locator("#whoami").textContent()).toBe(added);
    expect(await page.locator(`tr[data-email="${added}"]`).textContent()).toContain("Primary");

    await page.getByRole("button", { name: `Remove ${email}` }).click();
    await announcedOk(page, new RegExp(`Removed ${email.replace(/[.+]/g, "\\$&")}`));
    expect(await rows().count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("emails-title");

    // A page that is out of date: a third address made primary elsewhere, then "Remove" here: 409 explained.
    const third = freshEmail("third");
    await page.getByLabel("Add an e-mail address").fill(third);
    await page.getByRole("button", { name: "Add address" }).click();
    await page.getByLabel("Code from the e-mail").fill(await newCode(third, "email_add", 0));
    await page.getByRole("button", { name: "Verify address" }).click();
    await announcedOk(page, /is verified/);
    const id = ((await api("GET", "/emails", bearer())).body.items as { id: string; email: string }[]).find(
      (e) => e.email === third,
    )!.id;
    const stepUpBefore = await sent(added, "sensitive_action");
    expect((await api("POST", `/emails/${id}/primary`, bearer())).status).toBe(428);
    const primaryCode = await newCode(added, "sensitive_action", stepUpBefore);
    expect((await api("POST", `/emails/${id}/primary`, bearer(), { code: primaryCode })).status).toBe(200);
    await page.getByRole("button", { name: `Remove ${third}` }).click();
    await announcedError(page, /This is your primary address, so it cannot be removed/);
    await expect.poll(() => page.locator("#whoami").textContent()).toBe(third);
    await screenshot(page, "account-emails");
    expect(errors).toEqual([]);
  });
});

describe("account page: sessions", () => {
  it("lists sessions, signs out of one and of all others (step-up), survives a reload, and signing out everywhere leaves for sign-in", async () => {
    const { page, errors, email } = await signedIn("sessions");
    const other = await otherSession(email, "203.0.113.21");
    await page.reload();
    await page.locator("#account").waitFor({ state: "visible" });
    await expect.poll(() => sessionRows(page).count()).toBe(2);
    expect(await page.locator('#session-table tr[aria-current="true"]').textContent()).toContain(
      "This session",
    );
    // Named by browser and system (issue 24), never by the raw user agent.
    expect(await page.locator("#session-table").textContent()).toContain("Other on Other");
    expect(await page.locator("#session-table").textContent()).not.toContain("node-other-device");
    await screenshot(page, "account-sessions");

    // One other session: no step-up; its token stops working at once.
    await page.getByRole("button", { name: /^Sign out of the session signed in/ }).click();
    await announcedOk(page, /Signed out of the session/);
    await expect.poll(() => sessionRows(page).count()).toBe(1);
    expect((await api("GET", "/sessions", other.access_token)).status).toBe(401);

    // All other sessions: step-up; this one stays.
    const others = [await otherSession(email, "203.0.113.22"), await otherSession(email, "203.0.113.23")];
    await page.reload();
    await page.locator("#account").waitFor({ state: "visible" });
    await expect.poll(() => sessionRows(page).count()).toBe(3);
    await confirmWithStepUp(page, "sessions", email, "Sign out of all other sessions");
    await announcedOk(page, /Signed out of all other sessions/);
    await expect.poll(() => sessionRows(page).count()).toBe(1);
    for (const s of others) expect((await api("GET", "/sessions", s.access_token)).status).toBe(401);

    // A reload keeps the browser signed in (the refresh cookie), twice in a row.
    for (let i = 0; i < 2; i++) {
      await page.reload();
      await page.locator("#account").waitFor({ state: "visible" });
      expect(await page.locator("#whoami").textContent()).toBe(email);
    }

    // Everywhere, this session included: step-up, then the sign-in page; the cookie no longer works.
    await confirmWithStepUp(page, "sessions", email, "Sign out everywhere");
    await page.waitForURL((url) => url.pathname === "/auth/sign-in");
    await page.goto(`${identity()}/auth/account`);
    await page.waitForURL((url) => url.pathname === "/auth/sign-in" && url.search.includes("next="));
    expect(errors).toEqual([]);
  });

  it("two tabs opened at once both stay signed in: their refreshes take turns, and each keeps working", async () => {
    const { context, page, errors, email } = await signedIn("tabs");
    const second = await context.newPage();
    const secondErrors = watchPageErrors(second);
    // Both loads rotate the one refresh cookie; the page runs rotations under a Web Lock, one at a time
    // (two at once present the same token twice: reuse, every session ended; seen without the lock).
    await Promise.all([page.reload(), second.goto(`${identity()}/auth/account`)]);
    for (const p of [page, second]) {
      await p.locator("#account").waitFor({ state: "visible" });
      expect(await p.locator("#whoami").textContent()).toBe(email);
    }
    // Each tab's next call finds its session retired by the other's rotation, refreshes once and goes on.
    for (const p of [page, second, page]) {
      await p.getByRole("button", { name: "Set up an authenticator app" }).click();
      await p.locator("#totp-enroll").waitFor({ state: "visible" });
      await p.getByRole("button", { name: "Cancel" }).click();
      await announcedOk(p, /Set-up cancelled/);
    }
    expect(new URL(page.url()).pathname).toBe("/auth/account");
    expect(new URL(second.url()).pathname).toBe("/auth/account");
    expect([...errors, ...secondErrors]).toEqual([]);
  });

  it("a session ended elsewhere sends the open page to sign-in on its next call", async () => {
    const { page, errors, email } = await signedIn("revoked");
    const other = await otherSession(email, "203.0.113.31");
    const mine = (
      (await api("GET", "/sessions", other.access_token)).body.items as {
        id: string;
        current: boolean;
      }[]
    ).find((s) => !s.current)!;
    expect((await api("DELETE", `/sessions/${mine.id}`, other.access_token)).status).toBe(204);
    await page.getByLabel("Add an e-mail address").fill(freshEmail("late"));
    await page.getByRole("button", { name: "Add address" }).click();
    await page.waitForURL((url) => url.pathname === "/auth/sign-in");
    expect(errors).toEqual([]);
  });
});

describe("account page: security activity", () => {
  it("lists the account's recent events, labelled, newest first, with network and device as text", async () => {
    const { page, errors, email, bearer } = await signedIn("activity");
    const wrong = await fetch(`${identity()}/api/v1/auth/login/start`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "cf-connecting-ip": "203.0.113.77",
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
      },
      body: JSON.stringify({ email, password: "wrong-password-123456" }),
    });
    expect(wrong.status).toBe(401);
    // The failure is written after the answer (it costs the same as one for an unknown address).
    await expect
      .poll(async () => ((await api("GET", "/events", bearer())).body.items as unknown[]).length)
      .toBe(2);
    await page.reload();
    await page.locator("#account").waitFor({ state: "visible" });
    const rows = page.locator("#event-table tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    const newest = (await rows.nth(0).textContent()) ?? "";
    expect(newest).toContain("Failed sign-in");
    expect(newest).toContain("Password");
    expect(newest).toContain("203.0.113.0/24");
    expect(newest).toContain("Firefox on Linux");
    expect(newest).not.toContain("203.0.113.77");
    expect(await rows.nth(1).textContent()).toContain("Signed in");
    await expect.poll(() => page.locator("#events-more").isHidden()).toBe(true);
    expect(errors).toEqual([]);
  });
});

describe("account page without a session", () => {
  it("sends a browser with no session to sign-in, on the identity host and through the gateway alike", async () => {
    for (const origin of [identity(), platform().urls.gateway]) {
      const context = await newContext(browser());
      const page = await context.newPage();
      const errors = watchPageErrors(page);
      const res = await page.goto(`${origin}/auth/account`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
      await page.waitForURL((url) => url.pathname === "/auth/sign-in");
      expect(new URL(page.url()).origin).toBe(origin);
      expect(new URL(page.url()).searchParams.get("next")).toBe("/auth/account");
      expect(errors).toEqual([]);
    }
  });
});

describe("README screenshot", () => {
  it("keeps a small-viewport shot of the account page in docs/screenshots/account.png", async () => {
    const { page, errors } = await signedIn("readme");
    await page.setViewportSize({ width: 720, height: 900 });
    const file = path.join(root, "test-artifacts", "screenshots", "account-readme.png");
    mkdirSync(path.dirname(file), { recursive: true });
    await page.screenshot({ path: file, fullPage: false });
    mkdirSync(path.join(root, "docs", "screenshots"), { recursive: true });
    if (process.env.UPDATE_SCREENSHOTS === "1")
      copyFileSync(file, path.join(root, "docs", "screenshots", "account.png"));
    expect(errors).toEqual([]);
  });
});

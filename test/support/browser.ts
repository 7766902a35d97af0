/**
 * A real Chromium for the browser tests, driven by playwright-core: Debian's `/usr/bin/chromium` when the
 * machine has it, else the Chromium inside the `@sparticuz/chromium` npm package (unpacked to /tmp on
 * first use), so `npm install` + `npm test` need no browser download.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, expect, inject } from "vitest";
import { root } from "../../scripts/workers.mjs";

const DEBIAN = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
/**
 * Flags of the packaged Chromium (made for one page per Lambda call) left out: two would hide what the
 * tests check (web security), and with one process a second browser context never opens a page. Its GPU
 * emulation (ANGLE over SwiftShader, in the browser process) is left out too, for `--disable-gpu`: the
 * tests look at pages, not at WebGL, and Chromium's plain software compositor costs about a quarter less
 * CPU per page (account.test.ts with the platform: 31-34 s of CPU with the emulation, 24-25 s without).
 */
const DROPPED_FLAGS = new Set([
  "--disable-web-security",
  "--allow-running-insecure-content",
  "--single-process",
  "--no-zygote",
  "--use-gl=angle",
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
  "--ignore-gpu-blocklist",
  "--in-process-gpu",
]);

export const platform = () => inject("platform");

/** Screenshots and other artifacts of the browser tests (not committed; README images live in docs/). */
export const ARTIFACTS = path.join(root, "test-artifacts");

export async function launchChromium(): Promise<Browser> {
  const debian = DEBIAN.find((p) => existsSync(p));
  if (debian) {
    return chromium.launch({ executablePath: debian, headless: true, args: ["--no-sandbox"] });
  }
  const packaged = (await import("@sparticuz/chromium")).default;
  return chromium.launch({
    executablePath: await packaged.executablePath(),
    headless: true,
    args: [...packaged.args.filter((flag) => !DROPPED_FLAGS.has(flag)), "--disable-gpu"],
  });
}

let ipCounter = 0;
/**
 * A new Chromium for each test of the calling file, closed after it (the packaged Chromium runs as one
 * process, and a second context opened after closing the first one in the same browser never gets its
 * page). Call at the file's top level; the getter gives the running test's browser.
 */
export function browserPerTest(): () => Browser {
  let browser: Browser | undefined;
  beforeEach(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error("browserPerTest: no browser outside a test");
    return browser;
  };
}

/**
 * One Chromium for all the calling file's tests, and the profiles they open with `context()`: every one
 * stays open until the file ends (the packaged Chromium runs as a single process, which closing a context
 * can take down with it), then all close with the browser. Call at the file's top level.
 */
export function browserPerFile(): {
  context: () => Promise<BrowserContext>;
  page: (url: string) => Promise<{ page: Page; errors: string[] }>;
} {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const context of contexts.splice(0)) await context.close().catch(() => undefined);
    await browser?.close();
  });
  const context = async () => {
    if (!browser) throw new Error("browserPerFile: no browser outside the file's tests");
    const opened = await newContext(browser);
    contexts.push(opened);
    return opened;
  };
  return {
    context,
    /** `url` in a new profile, its script errors and CSP refusals watched from the start. */
    page: async (url) => {
      const page = await (await context()).newPage();
      const errors = watchPageErrors(page);
      await page.goto(url);
      return { page, errors };
    },
  };
}

/** A client address of its own (documentation range), so per-IP quotas of one test never meet another's. */
export function freshClientIp(): string {
  ipCounter += 1;
  const n = (process.pid * 7919 + ipCounter) % 65_000;
  return `198.51.${Math.floor(n / 250) % 256}.${(n % 250) + 1}`;
}

/**
 * A new browser profile (cookies, storage, authenticators of its own). By default every request carries a
 * fresh `CF-Connecting-IP`, as Cloudflare's edge would set it for a new visitor.
 */
export async function newContext(
  browser: Browser,
  options: { clientIp?: string | false } = {},
): Promise<BrowserContext> {
  const ip = options.clientIp === undefined ? freshClientIp() : options.clientIp;
  return browser.newContext({
    extraHTTPHeaders: ip ? { "cf-connecting-ip": ip } : {},
    viewport: { width: 1000, height: 800 },
  });
}

/**
 * Saves a full-page screenshot under test-artifacts/screenshots/<name>.png and returns its path
 * (`fullPage: false`: the viewport only, for pages as long as an API reference).
 */
export async function screenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<string> {
  const dir = path.join(ARTIFACTS, "screenshots");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: options.fullPage ?? true });
  return file;
}

/** Collects what the page reports as refused by its Content Security Policy and any script error. */
export function watchPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy|Refused to/i.test(msg.text())) {
      errors.push(`csp: ${msg.text()}`);
    }
  });
  return errors;
}

/** The newest message to `to` in the dev outbox (polled: identity mails after it answers). */
export async function outboxMessage(
  to: string,
  purpose: string,
): Promise<{ code: string | null; link: string | null; purpose: string }> {
  const url = `${platform().urls.gateway}/api/v1/auth/__dev/outbox?to=${encodeURIComponent(to)}`;
  for (let attempt = 0; attempt < 100; attempt++) {
    const res = await fetch(url);
    const body = (await res.json()) as {
      messages: { purpose: string; code: string | null; link?: string | null }[];
    };
    const found = body.messages.find((m) => m.purpose === purpose);
    if (found) return { purpose: found.purpose, code: found.code, link: found.link ?? null };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${purpose} message to ${to}`);
}

let counter = 0;
/** A new address per call (a counter beside the time, so two calls in one millisecond differ). */
export const freshEmail = (tag: string) =>
  `${tag}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;

interface OutboxEntry {
  purpose: string;
  code: string | null;
}

async function outbox(to: string): Promise<OutboxEntry[]> {
  const res = await fetch(
    `${platform().urls.identity}/api/v1/auth/__dev/outbox?to=${encodeURIComponent(to)}`,
  );
  return ((await res.json()) as { messages: OutboxEntry[] }).messages;
}

/** How many `purpose` messages `to` has had: take this before an action, then `newCode` after it. */
export async function sent(to: string, purpose: string): Promise<number> {
  return (await outbox(to)).filter((m) => m.purpose === purpose).length;
}

/** The code of the first `purpose` message to `to` beyond the `before` already there (newest first). */
export async function newCode(to: string, purpose: string, before: number): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const messages = (await outbox(to)).filter((m) => m.purpose === purpose);
    if (messages.length > before && messages[0]!.code) return messages[0]!.code;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no new ${purpose} message to ${to}`);
}

/**
 * A new account signed in the way a browser is: signup and the e-mailed confirmation code called from
 * inside `page` on a page of the identity origin, so the page's cookie jar holds the session.
 */
export async function signUpInPage(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${platform().urls.identity}/health`);
  const post = (p: string, body: unknown) =>
    page.evaluate(
      async ({ p, body }) =>
        (
          await fetch(`/api/v1/auth${p}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).status,
      { p, body },
    );
  expect(await post("/signup", { email, password })).toBe(202);
  const code = await newCode(email, "email_verify", 0);
  expect(await post("/email/verify/confirm", { email, code })).toBe(200);
}

/**
 * A passkey authenticator inside Chromium (CDP `WebAuthn.addVirtualAuthenticator`): CTAP2, resident keys,
 * user verification that always succeeds. `transport` "internal" is a platform authenticator, "usb" a
 * security key.
 */
export async function virtualAuthenticator(
  context: BrowserContext,
  page: Page,
  transport: "internal" | "usb" = "internal",
  cdpSession?: CDPSession,
): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = cdpSession ?? (await context.newCDPSession(page));
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport,
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  return { cdp, authenticatorId };
}

/** The part of the pages' `window.Auth` (src/identity/pages/assets.ts) the tests call inside a page. */
export interface PageAuth {
  api(
    method: string,
    path: string,
    body: unknown,
    options?: { token?: string | false; headers?: Record<string, string> },
  ): Promise<{ status: number; ok: boolean; body: unknown }>;
  passkey: {
    creationOptions(json: unknown): PublicKeyCredentialCreationOptions;
    toJSON(credential: PublicKeyCredential): unknown;
  };
}

/**
 * Registers a passkey of the page's virtual authenticator for the Bearer `token`, as the account page does:
 * begin with the step-up code (every passkey costs it, the first included: issue 31), the browser's
 * `navigator.credentials.create`, finish. The finish call's status and body.
 */
export function registerPasskeyInPage(page: Page, token: string, stepUpCode: string | null) {
  return page.evaluate(
    async ({ bearer, code }) => {
      const Auth = (window as unknown as { Auth: PageAuth }).Auth;
      const begin = await Auth.api(
        "POST",
        "/mfa/passkey/register/begin",
        {},
        { token: bearer, headers: { "x-step-up-code": code ?? "" } },
      );
      const credential = await navigator.credentials.create({
        publicKey: Auth.passkey.creationOptions((begin.body as { publicKey: unknown }).publicKey),
      });
      const finish = await Auth.api(
        "POST",
        "/mfa/passkey/register/finish",
        { credential: Auth.passkey.toJSON(credential as PublicKeyCredential) },
        { token: bearer },
      );
      return { status: finish.status, body: finish.body as { discoverable?: boolean | null } };
    },
    { bearer: token, code: stepUpCode },
  );
}

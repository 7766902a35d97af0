/**
 * The hosted account page refreshes on an expired access token (issue 33): a call answered 401
 * `TOKEN_EXPIRED` rotates the HttpOnly `svc_refresh` cookie once (`POST /auth/refresh`) and is repeated with
 * the new token; the user stays on the page and the action is done. The expired token is the page's own
 * token re-signed by the platform's real key with `exp` in the past (as test/support/bearer-sweep.ts makes
 * it), put on the page's next call in Chromium's network layer (the page keeps its token in a closure, out
 * of reach): identity judges it for real.
 */
import type { Request as PlaywrightRequest } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  browserPerTest,
  freshEmail,
  newContext,
  platform,
  signUpInPage,
  watchPageErrors,
} from "../support/browser";
import { expiredCopy, tokenPart } from "../support/browser-tokens";

const PASSWORD = "correct-horse-battery-staple-expiry-42";

const browser = browserPerTest();

const identity = () => platform().urls.identity;

const bearerOf = (req: PlaywrightRequest) => req.headers().authorization?.replace(/^Bearer /, "") ?? null;

describe("the account page on an expired access token", () => {
  it("refreshes once on 401 TOKEN_EXPIRED, repeats the call with the new token, and stays signed in", {
    timeout: 120_000,
  }, async () => {
    const context = await newContext(browser());
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    const email = freshEmail("expiry");

    // Signed in the way a browser is: signup and confirmation from a page of the identity origin.
    await signUpInPage(page, email, PASSWORD);

    let live = "";
    page.on("request", (req) => {
      const bearer = bearerOf(req);
      if (bearer && req.url().includes("/api/v1/auth/")) live = bearer;
    });
    await page.goto(`${identity()}/auth/account`);
    await page.locator("#account").waitFor({ state: "visible" });
    await expect.poll(() => page.locator("#whoami").textContent()).toBe(email);
    const first = live;
    expect(first).not.toBe("");
    const expired = await expiredCopy(first);

    // The page's next POST /emails goes out with the expired token; everything after it as the page sends it.
    const seen: { method: string; path: string; bearer: string | null; status: number; code?: string }[] = [];
    let swapped = false;
    await page.route("**/api/v1/auth/emails", async (route) => {
      const req = route.request();
      if (req.method() !== "POST" || swapped) return route.continue();
      swapped = true;
      await route.continue({ headers: { ...req.headers(), authorization: `Bearer ${expired}` } });
    });
    page.on("response", async (res) => {
      const url = new URL(res.url());
      if (!url.pathname.startsWith("/api/v1/auth/") || res.request().method() !== "POST") return;
      const entry: (typeof seen)[number] = {
        method: res.request().method(),
        path: url.pathname,
        bearer: bearerOf(res.request()),
        status: res.status(),
      };
      seen.push(entry);
      const body = (await res.json().catch(() => null)) as { code?: string } | null;
      if (body?.code) entry.code = body.code;
    });

    const added = freshEmail("expiry-second");
    await page.getByLabel("Add an e-mail address").fill(added);
    await page.getByRole("button", { name: "Add address" }).click();
    await page
      .locator(`#email-table tr[data-email="${added}"]`)
      .waitFor({ state: "visible", timeout: 15_000 });

    await expect.poll(() => seen.length).toBeGreaterThanOrEqual(3);
    const posts = seen.map(({ path, status }) => `${path} ${status}`);
    expect(posts).toEqual(["/api/v1/auth/emails 401", "/api/v1/auth/refresh 200", "/api/v1/auth/emails 202"]);
    expect(swapped).toBe(true);
    expect(seen[0]?.code).toBe("TOKEN_EXPIRED");
    const retried = seen[2]!.bearer;
    expect(retried).not.toBeNull();
    expect(retried).not.toBe(first);
    expect(retried).not.toBe(expired);
    expect(tokenPart(retried!, 1).sub).toBe(tokenPart(first, 1).sub);
    // Still on the account page, signed in: no trip to sign-in.
    expect(new URL(page.url()).pathname).toBe("/auth/account");
    expect(await page.locator("#whoami").textContent()).toBe(email);
    expect(errors).toEqual([]);
    await context.close();
  });
});

/**
 * The browser harness itself: the packaged (or Debian's) Chromium runs with web security on, reaches the
 * platform on localhost, and the hosted pages' assets come from the identity Worker under a strict CSP.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, newContext, platform } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe("the browser harness", () => {
  it("reaches the gateway on localhost and keeps the same-origin policy", async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const res = await page.goto(`${platform().urls.gateway}/health`);
    expect(res?.status()).toBe(200);
    // A cross-origin read without CORS is refused: web security is on.
    const crossOrigin = await page.evaluate(async (url) => {
      try {
        await fetch(url);
        return "read";
      } catch {
        return "refused";
      }
    }, `${platform().urls.sites}/health`);
    expect(crossOrigin).toBe("refused");
    await context.close();
  });

  it("serves the pages' assets from the identity host", async () => {
    const res = await fetch(`${platform().urls.identity}/auth/assets/common.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/javascript");
    expect(await res.text()).toContain("window.Auth");
    const through = await fetch(`${platform().urls.gateway}/auth/assets/pages.css`);
    expect(through.status).toBe(200);
  });
});

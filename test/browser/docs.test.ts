/**
 * The API references load with the network cut off: every request to a host other than localhost is
 * aborted (and counted: none may be needed), each page runs under the strict CSP it is sent with (no
 * refusal, no script error), and the reference lists the service's operations. Reached through the
 * gateway's `/docs` (one page linking the three references) and on each service's own `/docs`.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, newContext, platform, screenshot, watchPageErrors } from "../support/browser";

type Service = "identity" | "content" | "sites";

/**
 * An operation of each service's OpenAPI document, as its summary shows in the reference's sidebar, and
 * the tag group it is listed under (collapsed until opened).
 */
const KNOWN_OPERATION: Record<Service, { group?: string; summary: string }> = {
  identity: {
    group: "Signup and password",
    summary: "Self-signup (identical 202 for new and registered e-mails)",
  },
  content: { group: "Posts", summary: "Create a post" },
  sites: { group: "Applets", summary: "The whole applets catalog with each app's state on this site" },
};
const SERVICES = Object.keys(KNOWN_OPERATION) as Service[];
const LIST_POSTS = "List posts (public keyset listing; with status the authenticated listing)";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A browser profile that may reach only this machine; `refused` lists every other URL it asked for. */
async function offlineContext(): Promise<{ context: BrowserContext; refused: string[] }> {
  const context = await newContext(browser);
  const refused: string[] = [];
  await context.route("**/*", async (route) => {
    const { hostname } = new URL(route.request().url());
    if (hostname === "localhost" || hostname === "127.0.0.1") return route.continue();
    refused.push(route.request().url());
    return route.abort("internetdisconnected");
  });
  return { context, refused };
}

/** The reference has rendered the document: the operation's summary is listed (its group opened). */
async function expectOperationListed(page: Page, service: Service) {
  const { group, summary } = KNOWN_OPERATION[service];
  if (group) {
    // The reference opens its first group itself; the others wait for a click.
    const toggle = page.getByRole("button", { name: new RegExp(`^(Open|Close) Group - ${group}$`) });
    await toggle.first().waitFor({ timeout: 30_000 });
    const open = page.getByRole("button", { name: `Open Group - ${group}` });
    if ((await open.count()) > 0) await open.first().click();
  }
  await page.getByText(summary, { exact: true }).first().waitFor({ timeout: 30_000 });
}

describe("API reference pages (offline, strict CSP)", () => {
  it("the gateway's /docs links the three references, and each lists its operations", async () => {
    const { context, refused } = await offlineContext();
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    const gateway = platform().urls.gateway;

    const res = await page.goto(`${gateway}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await screenshot(page, "docs-index");
    for (const service of SERVICES) {
      await page.goto(`${gateway}/docs`);
      const link = page.getByRole("link", { name: new RegExp(`^${service} API$`, "i") });
      await Promise.all([page.waitForURL(`${gateway}/docs/${service}`), link.click()]);
      await expectOperationListed(page, service);
      await screenshot(page, `docs-${service}`, { fullPage: false });
    }
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    await context.close();
  });

  it.each(SERVICES)("%s's own /docs lists its operations", async (service) => {
    const { context, refused } = await offlineContext();
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    const res = await page.goto(`${platform().urls[service]}/docs`);
    expect(res?.status()).toBe(200);
    await expectOperationListed(page, service);
    await screenshot(page, `docs-${service}-direct`, { fullPage: false });
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    await context.close();
  });

  it("content's Try it sends the public key as ?key=, never an empty Authorization over it", async () => {
    const { context } = await offlineContext();
    const page = await context.newPage();
    const sent: { url: string; authorization: string | undefined }[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/v1/posts") {
        sent.push({ url: r.url(), authorization: r.headers().authorization });
      }
    });
    await page.goto(`${platform().urls.gateway}/docs/content`);
    await expectOperationListed(page, "content");
    await page.getByText(LIST_POSTS, { exact: true }).first().click();
    await page
      .getByRole("button", { name: /Test Request/i })
      .first()
      .click({ timeout: 30_000 });
    await page.getByRole("button", { name: /^Send/i }).first().click({ timeout: 30_000 });
    await expect.poll(() => sent.length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(sent[0]!.authorization).toBeUndefined();
    expect(new URL(sent[0]!.url).searchParams.has("key")).toBe(true);
    await context.close();
  });
});

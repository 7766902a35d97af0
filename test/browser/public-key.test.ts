/**
 * A `pk_` key in a real browser, through the gateway: a page on an allowlisted origin reads the site's
 * posts with `Authorization: Bearer pk_…` (a CORS request with a preflight) and with `?key=pk_…` (a simple
 * request: no preflight is sent); a page on another origin is refused for both forms (the CORS check
 * fails, so it cannot read the answer). The tenant is made the way a client makes one: signup, the
 * e-mailed code, an organization, a site, the keys, posts published with a `ck_` key.
 */
import type { Server } from "node:http";
import type { Browser, CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freshClientIp,
  launchChromium,
  newContext,
  platform,
  screenshot,
  watchPageErrors,
} from "../support/browser";
import { gatewayCall, serveHtml, siteKeys, siteOwner } from "../support/browser-api";

interface Tenant {
  publicKey: string;
  titles: string[];
}

async function createTenant(allowedOrigin: string): Promise<Tenant> {
  const { secret, publicKey } = await siteKeys(
    await siteOwner("pk", "Browser"),
    { secret: ["posts:write", "posts:read"], public: ["posts:read"] },
    allowedOrigin,
  );
  const titles = ["First from the browser test", "Second from the browser test"];
  for (const title of titles) {
    await gatewayCall("POST", "/v1/posts", {
      token: secret,
      body: {
        title,
        status: "published",
        blocks_json: { blocks: [{ type: "paragraph", data: { text: title } }] },
      },
    });
  }
  return { publicKey, titles };
}

/** A tiny site page on its own localhost port (its own origin). */
async function serveSitePage(name: string): Promise<{ server: Server; origin: string }> {
  return serveHtml(`<!doctype html><html lang="en"><title>${name}</title><h1>${name}</h1></html>`);
}

type ReadResult =
  | { outcome: "read"; status: number; titles: string[] }
  | { outcome: "refused"; error: string };

/** What the page's own script sees when it reads the posts (the fetch runs in the page, as the page). */
function readPosts(page: Page, url: string, authorization?: string): Promise<ReadResult> {
  return page.evaluate(
    async ({ url, authorization }) => {
      try {
        const res = await fetch(url, authorization ? { headers: { authorization } } : {});
        const body = (await res.json()) as { items?: { title: string }[] };
        return {
          outcome: "read" as const,
          status: res.status,
          titles: (body.items ?? []).map((p) => p.title),
        };
      } catch (err) {
        return { outcome: "refused" as const, error: String(err) };
      }
    },
    { url, authorization },
  );
}

/** Counts the CORS preflights Chromium sends (DevTools reports each as a request of type Preflight). */
async function preflightCounter(cdp: CDPSession): Promise<() => string[]> {
  const preflights: string[] = [];
  await cdp.send("Network.enable");
  cdp.on("Network.requestWillBeSent", (event) => {
    if (event.type === "Preflight" || event.request.method === "OPTIONS") preflights.push(event.request.url);
  });
  return () => [...preflights];
}

/**
 * A browser profile without the harness's `CF-Connecting-IP` header: an extra request header is part of
 * the browser's CORS check (it would need a preflight and be refused), unlike the header Cloudflare's edge
 * adds after the browser. These few reads share the "unknown" client's per-IP quota.
 */
const siteVisitor = () => newContext(browser, { clientIp: false });

let browser: Browser;
let allowed: { server: Server; origin: string };
let other: { server: Server; origin: string };
let tenant: Tenant;

beforeAll(async () => {
  [allowed, other] = await Promise.all([serveSitePage("Allowlisted site"), serveSitePage("Another site")]);
  tenant = await createTenant(allowed.origin);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  for (const s of [allowed, other]) s?.server.close();
});

const postsUrl = () => `${platform().urls.gateway}/v1/posts`;

describe("a pk_ key in Chromium, through the gateway", () => {
  it("an allowlisted origin reads the posts with the Bearer form (preflighted) and the ?key= form (not)", async () => {
    const context = await siteVisitor();
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    const preflights = await preflightCounter(await context.newCDPSession(page));
    await page.goto(allowed.origin);

    const bearer = await readPosts(page, postsUrl(), `Bearer ${tenant.publicKey}`);
    expect(bearer).toMatchObject({ outcome: "read", status: 200 });
    expect(bearer.outcome === "read" && [...bearer.titles].sort()).toEqual([...tenant.titles].sort());
    // The Authorization header is not CORS-safelisted: the browser asked first.
    expect(preflights()).toHaveLength(1);

    const query = await readPosts(page, `${postsUrl()}?key=${encodeURIComponent(tenant.publicKey)}&limit=10`);
    expect(query).toMatchObject({ outcome: "read", status: 200 });
    expect(query.outcome === "read" && [...query.titles].sort()).toEqual([...tenant.titles].sort());
    // A simple GET: no second preflight.
    expect(preflights()).toHaveLength(1);

    await page.evaluate((titles) => {
      document.body.insertAdjacentHTML(
        "beforeend",
        `<ul>${titles.map((t) => `<li>${t}</li>`).join("")}</ul>`,
      );
    }, tenant.titles);
    await screenshot(page, "public-key-allowed-origin");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("another origin cannot read the answer with either form", async () => {
    const context = await siteVisitor();
    const page = await context.newPage();
    await page.goto(other.origin);

    const bearer = await readPosts(page, postsUrl(), `Bearer ${tenant.publicKey}`);
    expect(bearer).toMatchObject({ outcome: "refused", error: expect.stringMatching(/Failed to fetch/) });
    const query = await readPosts(page, `${postsUrl()}?key=${encodeURIComponent(tenant.publicKey)}`);
    expect(query).toMatchObject({ outcome: "refused", error: expect.stringMatching(/Failed to fetch/) });

    // The refusal is content's 403 (the key is valid, the place of use is not); only the browser may not
    // show it to this page.
    const direct = await fetch(`${postsUrl()}?key=${encodeURIComponent(tenant.publicKey)}`, {
      headers: { origin: other.origin, "cf-connecting-ip": freshClientIp() },
    });
    expect(direct.status).toBe(403);
    expect(((await direct.json()) as { code: string }).code).toBe("ORIGIN_NOT_ALLOWED");
    expect(direct.headers.get("access-control-allow-origin")).toBeNull();
    await screenshot(page, "public-key-other-origin");
    await context.close();
  });
});

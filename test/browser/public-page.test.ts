/**
 * Issue 22's done-when, in Chromium: a public page on an allowlisted origin renders its feed with images
 * from `srcset` and its `<head>` from the SEO reads, with a `pk_` key only (`?key=`: simple requests).
 * Every `<img>` loads (`naturalWidth > 0`) from the public origin (`currentSrc` on the gateway), and no
 * request of the page reaches a service's own port. The images are real uploads whose variants the
 * Images binding made (locally through sharp).
 */
import type { Server } from "node:http";
import type { Browser } from "playwright-core";
import sharp from "sharp";
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

async function upload(secret: string, width: number, height: number, color: string): Promise<string> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append("file", new File([new Uint8Array(bytes)], "cover.png", { type: "image/png" }));
  const res = await fetch(`${platform().urls.gateway}/v1/media`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "cf-connecting-ip": freshClientIp() },
    body: form,
  });
  if (res.status !== 202) throw new Error(`upload -> ${res.status}: ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  for (let i = 0; i < 150; i++) {
    const asset = await gatewayCall<{ status: string }>("GET", `/v1/media/${id}`, { token: secret });
    if (asset.status === "ready") return id;
    if (asset.status === "failed") throw new Error("variants failed");
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("variants never ready");
}

interface Tenant {
  publicKey: string;
  titles: string[];
}

async function createTenant(allowedOrigin: string): Promise<Tenant> {
  const { secret, publicKey } = await siteKeys(
    await siteOwner("pg", "Page"),
    {
      secret: ["posts:write", "media:write", "media:read", "seo:write"],
      public: ["posts:read", "seo:read"],
    },
    allowedOrigin,
  );
  await gatewayCall("PATCH", "/v1/site/seo", {
    token: secret,
    body: { meta_title: "The Page Site", meta_description: "Site head" },
  });
  const titles = ["A red cover", "A blue cover"];
  for (const [i, title] of titles.entries()) {
    const media = await upload(secret, 1400, 700, i === 0 ? "#c83232" : "#3232c8");
    const post = await gatewayCall<{ id: string }>("POST", "/v1/posts", {
      token: secret,
      body: {
        title,
        status: "published",
        featured_image_id: media,
        blocks_json: { blocks: [{ type: "image", data: { media_id: media, caption: title } }] },
      },
    });
    await gatewayCall("PATCH", `/v1/posts/${post.id}/seo`, {
      token: secret,
      body: { meta_description: `About ${title}` },
    });
  }
  return { publicKey, titles };
}

/** The site's page: empty until its own script (run by the test, as the page) renders it. */
async function serveSitePage(): Promise<{ server: Server; origin: string }> {
  return serveHtml(
    '<!doctype html><html lang="en"><head><title>loading</title></head><body><main></main></body></html>',
  );
}

let browser: Browser;
let site: { server: Server; origin: string };
let tenant: Tenant;

beforeAll(async () => {
  site = await serveSitePage();
  tenant = await createTenant(site.origin);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  site?.server.close();
});

describe("a public page renders its feed and head with a pk_ key only", () => {
  it("images from srcset on the public origin, the head from the SEO reads, no request to a service's port", async () => {
    const { gateway, identity, content, sites } = platform().urls;
    const context = await newContext(browser, { clientIp: false });
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    const requested: string[] = [];
    page.on("request", (r) => requested.push(r.url()));
    await page.setViewportSize({ width: 480, height: 900 });
    await page.goto(site.origin);

    await page.evaluate(
      async ({ api, key }) => {
        const get = async (path: string) => {
          const sep = path.includes("?") ? "&" : "?";
          const res = await fetch(`${api}${path}${sep}key=${encodeURIComponent(key)}`);
          if (!res.ok) throw new Error(`${path}: ${res.status}`);
          return res.json();
        };
        const seo = await get("/v1/site/seo");
        document.title = seo.meta_title;
        const meta = document.createElement("meta");
        meta.name = "description";
        meta.content = seo.meta_description;
        document.head.append(meta);
        const feed = await get("/v1/posts?limit=10");
        const main = document.querySelector("main")!;
        for (const post of feed.items) {
          const postSeo = await get(`/v1/posts/${post.slug}/seo`);
          const article = document.createElement("article");
          const img = document.createElement("img");
          img.alt = post.featured_image.alt;
          img.width = post.featured_image.width;
          img.height = post.featured_image.height;
          img.sizes = "(max-width: 480px) 100vw, 480px";
          img.srcset = post.featured_image.srcset;
          img.src = post.featured_image.url;
          img.style.width = "100%";
          img.style.height = "auto";
          const h2 = document.createElement("h2");
          h2.textContent = post.title;
          const p = document.createElement("p");
          p.textContent = postSeo.meta_description;
          article.append(img, h2, p);
          main.append(article);
        }
        // One post's body as the API renders it (content_html: <picture> with the WebP source first).
        const detail = await get(`/v1/posts/${feed.items[0].id}`);
        const body = document.createElement("section");
        body.innerHTML = detail.content_html;
        main.append(body);
      },
      { api: gateway, key: tenant.publicKey },
    );
    await page.waitForFunction(() => [...document.images].every((i) => i.complete), undefined, {
      timeout: 20_000,
    });

    const images = await page.evaluate(() =>
      [...document.images].map((i) => ({ natural: i.naturalWidth, current: i.currentSrc, srcset: i.srcset })),
    );
    expect(images).toHaveLength(3);
    for (const image of images) {
      expect(image.natural).toBeGreaterThan(0);
      expect(image.srcset).not.toBe("");
      expect(image.current.startsWith(`${gateway}/media/`)).toBe(true);
    }
    // A 480 px wide viewport picks a variant, never the 1400 px original; the body's <picture> takes WebP.
    expect(images[0]!.current).toMatch(/\/(320|640|1280)\.png$/);
    expect(images[2]!.current).toMatch(/\.webp$/);
    expect(await page.title()).toBe("The Page Site");
    expect(await page.locator('meta[name="description"]').getAttribute("content")).toBe("Site head");
    expect(await page.locator("article p").allTextContents()).toEqual(
      [...tenant.titles].reverse().map((t) => `About ${t}`),
    );
    const servicePorts = [identity, content, sites].map((u) => new URL(u).port);
    expect(requested.filter((u) => servicePorts.includes(new URL(u).port))).toEqual([]);
    expect(requested.some((u) => u.startsWith(`${gateway}/media/`))).toBe(true);
    await screenshot(page, "public-page-feed");
    expect(errors).toEqual([]);
    await context.close();
  });
});

/**
 * Issue 35's done-when, in Chromium: a new user's page, served by their own server on a port of its own (not
 * an allowlisted origin), renders a post list with its total and a post with its `<head>` from server-side
 * `pk_` reads (the demo key's `server_reads`: no Origin, Node's `fetch` as any SSR framework sends it), and
 * keeps working after `npm run seed` is run again (the rerun keeps the demo keys).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../scripts/seed.mjs";
import { launchChromium, newContext, platform, screenshot, watchPageErrors } from "../support/browser";

const dir = mkdtempSync(path.join(tmpdir(), "first-page-"));
const stateFile = path.join(dir, "demo-owner.json");

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

interface PostList {
  items: { slug: string; title: string }[];
  total: number;
}

/**
 * The user's server: `/` lists the newest posts and how many there are; `/p/<slug>` renders one post with
 * its `<title>` and description from the SEO read. Every read is a server-side call with the `pk_` key in
 * `Authorization` and no Origin.
 */
function userServer(gateway: string, key: () => string): Server {
  const read = async <T>(p: string): Promise<T> => {
    const res = await fetch(`${gateway}${p}`, { headers: { authorization: `Bearer ${key()}` } });
    if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return createServer((req, res) => {
    const page = async (): Promise<string> => {
      const url = new URL(req.url ?? "/", "http://page.local");
      if (url.pathname === "/") {
        const list = await read<PostList>("/v1/posts?limit=2&include=total");
        const items = list.items
          .map((p) => `<li><a href="/p/${escapeHtml(p.slug)}">${escapeHtml(p.title)}</a></li>`)
          .join("");
        return `<!doctype html><html lang="en"><head><title>My blog</title></head><body><p id="total">${list.total} posts</p><ul>${items}</ul></body></html>`;
      }
      const slug = decodeURIComponent(url.pathname.replace(/^\/p\//, ""));
      const [post, seo] = await Promise.all([
        read<{ title: string; content_html: string }>(`/v1/posts/${encodeURIComponent(slug)}`),
        read<{ meta_title: string | null; meta_description: string | null }>(
          `/v1/posts/${encodeURIComponent(slug)}/seo`,
        ),
      ]);
      return `<!doctype html><html lang="en"><head><title>${escapeHtml(seo.meta_title ?? post.title)}</title><meta name="description" content="${escapeHtml(seo.meta_description ?? "")}"></head><body><h1>${escapeHtml(post.title)}</h1>${post.content_html}</body></html>`;
    };
    page().then(
      (html) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(html);
      },
      (err: Error) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(err.message);
      },
    );
  });
}

let browser: Browser;
let server: Server;
let origin: string;
let publicKey: string;
let secretKey: string;

beforeAll(async () => {
  const { gateway } = platform().urls;
  const demo = await seedDemo(gateway, { stateFile });
  publicKey = demo.keys.public;
  secretKey = demo.keys.secret;
  server = userServer(gateway, () => publicKey);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function publish(title: string, description: string): Promise<string> {
  const { gateway } = platform().urls;
  const res = await fetch(`${gateway}/v1/posts`, {
    method: "POST",
    headers: { authorization: `Bearer ${secretKey}`, "content-type": "application/json" },
    body: JSON.stringify({ title, status: "published", markdown: `Hello from **${title}**.` }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const { id, slug } = (await res.json()) as { id: string; slug: string };
  const seo = await fetch(`${gateway}/v1/posts/${id}/seo`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${secretKey}`, "content-type": "application/json" },
    body: JSON.stringify({ meta_title: `${title} | My blog`, meta_description: description }),
  });
  expect(seo.status, await seo.clone().text()).toBe(200);
  return slug;
}

describe("a new user's page, rendered on their server with the demo pk_ key", () => {
  it("lists posts with the total, renders a post's head server-side, and survives a seed rerun", async () => {
    const slugs = [
      await publish("First steps", "How it started"),
      await publish("Second thoughts", "What came next"),
      await publish("Third time", "The one with the head"),
    ];
    const context = await newContext(browser, { clientIp: false });
    const page = await context.newPage();
    const errors = watchPageErrors(page);

    await page.goto(origin);
    const total = Number((await page.textContent("#total"))?.split(" ")[0]);
    // The demo site holds what the seed and earlier files wrote too: at least these three, more than a page.
    expect(total).toBeGreaterThanOrEqual(3);
    expect(await page.locator("li").count()).toBe(2);
    expect(await page.locator("li").first().textContent()).toBe("Third time");

    await page.goto(`${origin}/p/${slugs[2]}`);
    expect(await page.title()).toBe("Third time | My blog");
    expect(await page.getAttribute('meta[name="description"]', "content")).toBe("The one with the head");
    expect(await page.textContent("h1")).toBe("Third time");
    await screenshot(page, "first-page-post");

    // The developer runs the seed again for a fresh token: the page's key keeps working.
    const again = await seedDemo(platform().urls.gateway, { stateFile });
    expect(again.keys.public).toBe(publicKey);
    await page.goto(origin);
    expect(Number((await page.textContent("#total"))?.split(" ")[0])).toBe(total);
    await page.goto(`${origin}/p/${slugs[0]}`);
    expect(await page.title()).toBe("First steps | My blog");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the same key opened in the browser itself (no Origin, but fetch metadata) is refused: server reads are for servers", async () => {
    const { gateway } = platform().urls;
    const context = await newContext(browser, { clientIp: false });
    const page = await context.newPage();
    // A navigation sends no Origin, and Sec-Fetch-Site/-Mode/-Dest: a browser, never a server read.
    const answer = await page.goto(`${gateway}/v1/posts?key=${encodeURIComponent(publicKey)}`);
    expect(answer?.status()).toBe(403);
    expect(await answer?.text()).toContain("ORIGIN_NOT_ALLOWED");
    await context.close();
  });
});

/**
 * Issue 11, "No public URL": every post representation carries its absolute public `url` (custom domain,
 * else `{slug}.{PLATFORM_DOMAIN}`; the default language at the root, others under `/{language}`), and
 * `GET /v1/site` carries the canonical host. PLATFORM_DOMAIN is `sites.localhost` in tests.
 */
import { describe, expect, it } from "vitest";
import { call, createPost, ORIGIN, tenant } from "../support/content-helpers";

interface Page {
  items: { id: string; url: string }[];
}

async function json<T>(res: Response, status = 200): Promise<T> {
  expect(res.status).toBe(status);
  return (await res.json()) as T;
}

describe("post url", () => {
  it("a site without a custom domain: https://{site slug}.{platform domain}/{post slug} everywhere", async () => {
    const t = await tenant({ primary_domain: null });
    const url = `https://${t.site.slug}.sites.localhost/hello`;
    const created = await createPost(t.ck, { title: "Hello", slug: "hello", status: "published" });
    expect(created.url).toBe(url);

    const detail = await json<{ url: string }>(
      await call("GET", "/v1/posts/hello", { key: t.pk, origin: ORIGIN }),
    );
    expect(detail.url).toBe(url);
    const list = await json<Page>(await call("GET", "/v1/posts", { key: t.pk, origin: ORIGIN }));
    expect(list.items).toEqual([expect.objectContaining({ id: created.id, url })]);
    const byStatus = await json<Page>(await call("GET", "/v1/posts?status=published", { key: t.ck }));
    expect(byStatus.items).toEqual([expect.objectContaining({ id: created.id, url })]);
  });

  it("a site with a custom domain: its host", async () => {
    const t = await tenant();
    const created = await createPost(t.ck, { title: "Hi", slug: "hi", status: "published" });
    expect(created.url).toBe(`https://${t.site.primary_domain}/hi`);
    const detail = await json<{ url: string }>(await call("GET", `/v1/posts/${created.id}`, { key: t.ck }));
    expect(detail.url).toBe(`https://${t.site.primary_domain}/hi`);
  });

  it("a post in another language than the site's default is under /{language}/", async () => {
    const t = await tenant({ default_language: "en" });
    const pt = await createPost(t.ck, { title: "Olá", slug: "ola", language: "pt-BR", status: "published" });
    expect(pt.url).toBe(`https://${t.site.primary_domain}/pt-BR/ola`);
    const list = await json<Page>(await call("GET", "/v1/posts?language=pt-BR", { key: t.ck }));
    expect(list.items.map((i) => i.url)).toEqual([`https://${t.site.primary_domain}/pt-BR/ola`]);
  });

  it("drafts and scheduled posts carry the url they will have once public", async () => {
    const t = await tenant();
    const draft = await createPost(t.ck, { title: "Draft", slug: "later" });
    expect(draft.url).toBe(`https://${t.site.primary_domain}/later`);
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await createPost(t.ck, {
      title: "S",
      slug: "soon",
      status: "scheduled",
      published_at: at,
    });
    expect(scheduled.url).toBe(`https://${t.site.primary_domain}/soon`);
    const list = await json<Page>(await call("GET", "/v1/posts?status=draft,scheduled", { key: t.ck }));
    expect(list.items.map((i) => i.url).sort()).toEqual([draft.url, scheduled.url].sort());
  });

  it("the PATCH and unpublish answers carry the url after the edit", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "P", slug: "old", status: "published" });
    const plain = await json<{ url: string }>(
      await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { title: "Renamed" } }),
    );
    expect(plain.url).toBe(`https://${t.site.primary_domain}/old`);
    const moved = await json<{ url: string }>(
      await call("PATCH", `/v1/posts/${post.id}`, { key: t.ck, body: { slug: "new", language: "de" } }),
    );
    expect(moved.url).toBe(`https://${t.site.primary_domain}/de/new`);
    const archived = await json<{ url: string }>(
      await call("POST", `/v1/posts/${post.id}/unpublish`, { key: t.ck }),
    );
    expect(archived.url).toBe(`https://${t.site.primary_domain}/de/new`);
  });

  it("an idempotent replay answers the same url as the original create", async () => {
    const t = await tenant({ primary_domain: null });
    const headers = { "idempotency-key": "url-replay-1" };
    const body = { title: "Once", slug: "once", status: "published" };
    const first = await call("POST", "/v1/posts", { key: t.ck, body, headers });
    const original = await json<{ url: string }>(first, 201);
    expect(original.url).toBe(`https://${t.site.slug}.sites.localhost/once`);
    const again = await call("POST", "/v1/posts", { key: t.ck, body, headers });
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect((await json<{ url: string }>(again, 201)).url).toBe(original.url);
  });
});

describe("GET /v1/site canonical host", () => {
  it("is the custom domain when the site has one", async () => {
    const t = await tenant();
    const site = await json<Record<string, unknown>>(await call("GET", "/v1/site", { key: t.ck }));
    expect(site).toMatchObject({
      canonical_host: t.site.primary_domain,
      url: `https://${t.site.primary_domain}/`,
    });
  });

  it("is {slug}.{platform domain} without one", async () => {
    const t = await tenant({ primary_domain: null });
    const site = await json<Record<string, unknown>>(
      await call("GET", "/v1/site", { key: t.pk, origin: ORIGIN }),
    );
    expect(site).toMatchObject({
      primary_domain: null,
      canonical_host: `${t.site.slug}.sites.localhost`,
      url: `https://${t.site.slug}.sites.localhost/`,
    });
  });
});

describe("OpenAPI", () => {
  it("documents url on the post shapes and canonical_host and url on Site", async () => {
    const doc = (await (await call("GET", "/openapi.json")).json()) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    const { schemas } = doc.components;
    expect(schemas.PostListItem?.required).toContain("url");
    // PostSummary and PostDetail extend PostListItem (allOf of its $ref) or repeat its url.
    for (const name of ["PostSummary", "PostDetail"]) {
      expect(JSON.stringify(schemas[name]), name).toMatch(/"#\/components\/schemas\/PostListItem"|"url"/);
    }
    expect(schemas.Site?.required).toEqual(expect.arrayContaining(["canonical_host", "url"]));
  });
});

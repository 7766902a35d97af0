/**
 * Issue 35, the content model's names: categories and tags renamed and described (PATCH, a stored name
 * wins over the slug's words, in the lists and in post details); media alt text and caption (upload and
 * PATCH; a post's featured_image.alt and the rendered <img alt>/<figcaption>); `include=total` on the lists;
 * `display_name` on /v1/authors; `seo` in a post detail only for a key with seo:read.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/content/core/bindings";
import { newId } from "../../src/lib/ids";
import type { SiteGrant, SiteProjection } from "../../src/lib/rpc";
import {
  BASE,
  call,
  content,
  contentRequest,
  createKey,
  createPost,
  makeSite,
  ORIGIN,
  problem,
  tenant,
} from "../support/content-helpers";
import { createForm, formsSite, leadsKey, seedLeads } from "../support/leads-helpers";
import { pngImage } from "../support/png";
import { fetchThrough } from "../support/storage-hops";

/**
 * A request of the site's organization owner through the content Worker, with an identity that confirms
 * the grant (a dashboard write re-reads it, issue 34).
 */
function asOwner(site: SiteProjection, method: string, path: string, body?: unknown): Promise<Response> {
  const orgs = [{ org_id: site.org_id, role: "org_owner", owner: true, permissions: [] }];
  const headers = {
    "x-user-id": `user-${site.id}`,
    "x-session-id": newId(),
    "x-session-kind": "staff",
    "x-org-memberships": JSON.stringify(orgs),
    "x-site-memberships": "[]",
  };
  const identity = {
    displayName: async () => "Owner",
    siteGrant: async (): Promise<SiteGrant> => ({
      session_active: true,
      org_memberships: orgs,
      site_memberships: [],
      display_name: "Owner",
    }),
  };
  const workerEnv = { ...(env as unknown as Env), IDENTITY: identity as unknown as Fetcher };
  return fetchThrough(
    workerEnv,
    contentRequest(method, path, { headers, ...(body !== undefined ? { body } : {}) }),
  );
}

interface Term {
  slug: string;
  name: string;
  description: string | null;
  count?: number;
}

async function terms(key: string, kind: "categories" | "tags", query = "") {
  const res = await call("GET", `/v1/${kind}${query}`, { key, origin: ORIGIN });
  expect(res.status).toBe(200);
  return (await res.json()) as { items: Term[]; total?: number };
}

async function detail(key: string, reference: string, origin?: string) {
  const res = await call("GET", `/v1/posts/${reference}`, { key, ...(origin ? { origin } : {}) });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown> & {
    categories: Term[];
    tags: Term[];
    content_html: string;
    featured_image: { alt: string; caption: string | null } | null;
  };
}

/** A site with media scopes on its secret key too. */
async function mediaSite() {
  const site = await makeSite();
  const ck = await createKey(site, {
    scopes: ["posts:write", "posts:read", "seo:read", "media:write", "media:read"],
  });
  const pk = await createKey(site, { kind: "public", scopes: ["posts:read", "seo:read", "media:read"] });
  return { site, ck: ck.key, pk: pk.key };
}

async function upload(key: string, fields: Record<string, string> = {}, path = "/v1/media", headers = {}) {
  const form = new FormData();
  form.append("file", new File([await pngImage(4, 3)], "a.png"));
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return content.fetch(
    new Request(`${BASE}${path}`, {
      method: "POST",
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      body: form,
    }),
  );
}

describe("PATCH /v1/categories/{slug} and /v1/tags/{slug}", () => {
  it("names and describes a term: the lists and the post details show the stored name, others keep the slug's words", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, {
      title: "Release",
      status: "published",
      category_slugs: ["sdk", "open-source"],
      tag_slugs: ["js"],
    });
    expect((await terms(t.pk, "categories")).items.find((i) => i.slug === "sdk")).toEqual({
      slug: "sdk",
      name: "Sdk",
      description: null,
      count: 1,
    });
    const res = await call("PATCH", "/v1/categories/sdk", {
      key: t.ck,
      body: { name: "SDK", description: "Client libraries" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ slug: "sdk", name: "SDK", description: "Client libraries" });
    // Only sent fields change.
    const named = await call("PATCH", "/v1/tags/js", { key: t.ck, body: { description: "Scripts" } });
    expect(await named.json()).toEqual({ slug: "js", name: "Js", description: "Scripts" });
    const list = await terms(t.pk, "categories");
    expect(list.items).toEqual(
      expect.arrayContaining([
        { slug: "sdk", name: "SDK", description: "Client libraries", count: 1 },
        { slug: "open-source", name: "Open source", description: null, count: 1 },
      ]),
    );
    expect((await terms(t.pk, "tags")).items).toEqual([
      { slug: "js", name: "Js", description: "Scripts", count: 1 },
    ]);
    const shown = await detail(t.pk, post.slug, ORIGIN);
    expect(shown.categories).toEqual([
      { slug: "sdk", name: "SDK", description: "Client libraries" },
      { slug: "open-source", name: "Open source", description: null },
    ]);
    expect(shown.tags).toEqual([{ slug: "js", name: "Js", description: "Scripts" }]);
    expect(shown.category_slugs).toEqual(["sdk", "open-source"]);
    // A rename later, and description cleared: the cached answers move with it.
    await call("PATCH", "/v1/categories/sdk", { key: t.ck, body: { name: "Kits", description: null } });
    expect((await detail(t.pk, post.slug, ORIGIN)).categories[0]).toEqual({
      slug: "sdk",
      name: "Kits",
      description: null,
    });
  });

  it("a term of a draft exists too; a slug no post carries, a malformed one and another site's are 404", async () => {
    const t = await tenant();
    const other = await tenant();
    await createPost(t.ck, { title: "Draft", category_slugs: ["drafted"] });
    await createPost(other.ck, { title: "Theirs", status: "published", category_slugs: ["theirs"] });
    expect((await call("PATCH", "/v1/categories/drafted", { key: t.ck, body: { name: "D" } })).status).toBe(
      200,
    );
    for (const path of [
      "/v1/categories/nowhere",
      "/v1/categories/theirs",
      "/v1/tags/drafted",
      "/v1/tags/Not%20A%20Slug",
    ]) {
      const res = await call("PATCH", path, { key: t.ck, body: { name: "X" } });
      expect((await problem(res)).code, path).toBe("NOT_FOUND");
    }
    // Theirs stays theirs, unnamed.
    expect((await terms(other.pk, "categories")).items).toEqual([
      { slug: "theirs", name: "Theirs", description: null, count: 1 },
    ]);
  });

  it("strict body and limits; a pk_ key or a key without posts:write is refused", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "P", status: "published", tag_slugs: ["x"] });
    const unknown = await call("PATCH", "/v1/tags/x", { key: t.ck, body: { name: "X", color: "red" } });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { details: { path: string } }).details.path).toBe("color");
    for (const body of [{}, { name: "" }, { name: "n".repeat(101) }, { description: "d".repeat(1001) }]) {
      const res = await call("PATCH", "/v1/tags/x", { key: t.ck, body });
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    expect((await call("PATCH", "/v1/tags/x", { key: t.ck, body: { name: "n".repeat(100) } })).status).toBe(
      200,
    );
    expect((await call("PATCH", "/v1/tags/x", { key: t.ck, body: { description: "" } })).status).toBe(200);
    const pk = await call("PATCH", "/v1/tags/x", { key: t.pk, origin: ORIGIN, body: { name: "Y" } });
    expect(pk.status).toBe(403);
    const reader = await createKey(t.site, { scopes: ["posts:read"] });
    expect((await call("PATCH", "/v1/tags/x", { key: reader.key, body: { name: "Y" } })).status).toBe(403);
  });

  it("the dashboard twin: an owner names a term and lists it with its total (permissions: dashboard-permissions.security.test.ts)", async () => {
    const t = await tenant();
    await createPost(t.ck, { title: "P", status: "published", category_slugs: ["news"] });
    const path = `/api/v1/sites/${t.site.id}/categories/news`;
    const owner = await asOwner(t.site, "PATCH", path, { name: "News & notes" });
    expect(owner.status).toBe(200);
    expect(await owner.json()).toEqual({ slug: "news", name: "News & notes", description: null });
    const list = await asOwner(t.site, "GET", `/api/v1/sites/${t.site.id}/categories?include=total`);
    expect(await list.json()).toEqual({
      items: [{ slug: "news", name: "News & notes", description: null, count: 1 }],
      total: 1,
    });
  });
});

describe("media alt text and caption", () => {
  it("upload takes alt and caption as form fields; PATCH edits them; the media answers carry them", async () => {
    const m = await mediaSite();
    const res = await upload(m.ck, { alt: "A red kite", caption: "Over the hill" });
    expect(res.status).toBe(202);
    const asset = (await res.json()) as { id: string; alt: string | null; caption: string | null };
    expect(asset).toMatchObject({ alt: "A red kite", caption: "Over the hill" });
    const plain = (await (await upload(m.ck)).json()) as { id: string; alt: string | null };
    expect(plain).toMatchObject({ alt: null, caption: null });
    const patched = await call("PATCH", `/v1/media/${plain.id}`, { key: m.ck, body: { alt: "A kite" } });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ id: plain.id, alt: "A kite", caption: null });
    const cleared = await call("PATCH", `/v1/media/${asset.id}`, { key: m.ck, body: { caption: null } });
    expect(await cleared.json()).toMatchObject({ alt: "A red kite", caption: null });
    const got = await call("GET", `/v1/media/${plain.id}`, { key: m.ck });
    expect(await got.json()).toMatchObject({ alt: "A kite", caption: null });
  });

  it("limits, a strict body, nothing editable, another site's asset and a pk_ key are refused", async () => {
    const m = await mediaSite();
    const other = await mediaSite();
    expect((await upload(m.ck, { alt: "a".repeat(501) })).status).toBe(400);
    expect((await upload(m.ck, { caption: "c".repeat(1001) })).status).toBe(400);
    const { id } = (await (await upload(m.ck, { alt: "a".repeat(500) })).json()) as { id: string };
    for (const body of [
      {},
      { alt: "a".repeat(501) },
      { caption: "c".repeat(1001) },
      { alt: "x", title: "y" },
    ]) {
      const res = await call("PATCH", `/v1/media/${id}`, { key: m.ck, body });
      expect(res.status, Object.keys(body).join()).toBe(400);
    }
    const theirs = await call("PATCH", `/v1/media/${id}`, { key: other.ck, body: { alt: "mine" } });
    expect((await problem(theirs)).code).toBe("NOT_FOUND");
    const pk = await call("PATCH", `/v1/media/${id}`, { key: m.pk, origin: ORIGIN, body: { alt: "x" } });
    expect(pk.status).toBe(403);
  });

  it("a post's featured_image.alt is the asset's alt (else the title); <img alt> and <figcaption> use the asset's texts", async () => {
    const m = await mediaSite();
    const kite = (await (await upload(m.ck, { alt: "A red kite", caption: "Over the hill" })).json()) as {
      id: string;
    };
    const bare = (await (await upload(m.ck)).json()) as { id: string };
    const post = await createPost(m.ck, {
      title: "Birds",
      status: "published",
      featured_image_id: kite.id,
      blocks_json: {
        blocks: [
          { type: "image", data: { media_id: kite.id } },
          { type: "image", data: { media_id: bare.id, caption: "Block <b>caption</b>" } },
        ],
      },
    });
    const shown = await detail(m.pk, post.slug, ORIGIN);
    expect(shown.featured_image).toMatchObject({ alt: "A red kite", caption: "Over the hill" });
    expect(shown.content_html).toContain('alt="A red kite"');
    expect(shown.content_html).toContain("<figcaption>Over the hill</figcaption>");
    // Without its own texts, the block's caption stays the alt and the figcaption, as before.
    expect(shown.content_html).toContain('alt="Block caption"');
    expect(shown.content_html).toContain("<figcaption>Block <b>caption</b></figcaption>");
    // So do the list items.
    const list = await call("GET", "/v1/posts", { key: m.pk, origin: ORIGIN });
    const items = ((await list.json()) as { items: { featured_image: { alt: string } | null }[] }).items;
    expect(items[0]?.featured_image).toMatchObject({ alt: "A red kite", caption: "Over the hill" });
    // The write answer shows the asset's alt too.
    const untitled = await createPost(m.ck, {
      title: "Plain cover",
      status: "published",
      featured_image_id: bare.id,
    });
    expect((untitled.featured_image as { alt: string }).alt).toBe("Plain cover");
    // An edit of the alt reaches the cached detail.
    await call("PATCH", `/v1/media/${kite.id}`, { key: m.ck, body: { alt: "A kite, <flying>" } });
    const again = await detail(m.pk, post.slug, ORIGIN);
    expect(again.featured_image?.alt).toBe("A kite, <flying>");
    expect(again.content_html).toContain('alt="A kite, &lt;flying&gt;"');
  });

  it("the dashboard twin edits an asset's texts with media:upload", async () => {
    const m = await mediaSite();
    const { id } = (await (await upload(m.ck)).json()) as { id: string };
    const res = await asOwner(m.site, "PATCH", `/api/v1/sites/${m.site.id}/media/${id}`, {
      alt: "Dashboard alt",
      caption: "Dashboard caption",
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id, alt: "Dashboard alt", caption: "Dashboard caption" });
  });
});

describe("include=total", () => {
  it("media, categories, tags and authors add total (everything the filters match, not the page); unknown values are 400 naming them", async () => {
    const m = await mediaSite();
    for (let i = 0; i < 3; i++) await upload(m.ck);
    const media = await call("GET", "/v1/media?limit=2&include=total", { key: m.ck });
    const page = (await media.json()) as { items: unknown[]; total: number };
    expect(page.items).toHaveLength(2);
    expect(page.total).toBe(3);
    expect(await (await call("GET", "/v1/media?limit=2", { key: m.ck })).json()).not.toHaveProperty("total");
    for (const [i, slugs] of [["a", "b"], ["b", "c"], ["c"]].entries()) {
      await createPost(m.ck, {
        title: `P${i}`,
        status: "published",
        category_slugs: slugs,
        tag_slugs: slugs,
      });
    }
    expect((await terms(m.pk, "categories", "?include=total")).total).toBe(3);
    expect((await terms(m.pk, "tags", "?include=total&language=en")).total).toBe(3);
    expect(await terms(m.pk, "tags")).not.toHaveProperty("total");
    const authors = await call("GET", "/v1/authors?include=total", { key: m.ck });
    const listed = (await authors.json()) as { items: unknown[]; total: number };
    expect(listed.total).toBe(listed.items.length);
    for (const path of [
      "/v1/media?include=count",
      "/v1/categories?include=total,pages",
      "/v1/authors?include=x",
    ]) {
      const res = await call("GET", path, { key: m.ck });
      const body = (await res.json()) as { status: number; code: string; details: { unknown: string[] } };
      expect(res.status, path).toBe(400);
      expect(body.code).toBe("BAD_REQUEST");
      expect(body.details.unknown.length, path).toBe(1);
    }
  });

  it("posts: both listings add total (the filters' count, not the page) while paging stays keyset", async () => {
    const t = await tenant();
    for (let i = 0; i < 3; i++) {
      await createPost(t.ck, {
        title: `Live ${i}`,
        status: "published",
        category_slugs: i < 2 ? ["two"] : [],
      });
    }
    await createPost(t.ck, { title: "Draft" });
    const first = await call("GET", "/v1/posts?limit=2&include=total", { key: t.pk, origin: ORIGIN });
    const page = (await first.json()) as { items: unknown[]; next_cursor: string; total: number };
    expect([page.items.length, page.total]).toEqual([2, 3]);
    const next = await call("GET", `/v1/posts?limit=2&include=total&cursor=${page.next_cursor}`, {
      key: t.pk,
      origin: ORIGIN,
    });
    expect(await next.json()).toMatchObject({ next_cursor: null, total: 3 });
    const filtered = await call("GET", "/v1/posts?category=two&include=total", { key: t.pk, origin: ORIGIN });
    expect(await filtered.json()).toMatchObject({ total: 2 });
    expect(
      await (await call("GET", "/v1/posts?limit=2", { key: t.pk, origin: ORIGIN })).json(),
    ).not.toHaveProperty("total");
    const since = await call("GET", "/v1/posts?since=2000-01-01T00:00:00Z&include=total", { key: t.ck });
    expect(await since.json()).toMatchObject({ total: 3 });
    const status = await call("GET", "/v1/posts?status=draft,published&limit=1&include=total", { key: t.ck });
    expect(await status.json()).toMatchObject({ total: 4 });
    const dashboard = await asOwner(
      t.site,
      "GET",
      `/api/v1/sites/${t.site.id}/posts?status=draft&include=total`,
    );
    expect(await dashboard.json()).toMatchObject({ total: 1 });
    const unknown = await call("GET", "/v1/posts?include=total,everything", { key: t.pk, origin: ORIGIN });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ details: { unknown: ["everything"] } });
  });

  it("leads: total counts every lead the filters match while the page stays keyset", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    await seedLeads(site.id, form.id, 7, { spamEvery: 3 });
    const key = await leadsKey(site);
    const res = await call("GET", "/v1/leads?limit=2&include=total", { key });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { items: unknown[]; next_cursor: string; total: number };
    expect(page).toMatchObject({ total: 5 });
    expect(page.items).toHaveLength(2);
    const next = await call("GET", `/v1/leads?limit=2&include=total&cursor=${page.next_cursor}`, { key });
    expect(await next.json()).toMatchObject({ total: 5 });
    const all = await call("GET", "/v1/leads?status=all&include=total", { key });
    expect(await all.json()).toMatchObject({ total: 7 });
    expect((await call("GET", "/v1/leads?include=sum", { key })).status).toBe(400);
  });
});

describe("/v1/authors says display_name", () => {
  it("lists, creates and edits with display_name (name is still accepted on writes); no name member", async () => {
    const t = await tenant();
    const created = await call("POST", "/v1/authors", { key: t.ck, body: { display_name: "Ada Lovelace" } });
    expect(created.status).toBe(201);
    const author = (await created.json()) as Record<string, unknown>;
    expect(author).toMatchObject({ slug: "ada-lovelace", display_name: "Ada Lovelace" });
    expect(author).not.toHaveProperty("name");
    const legacy = await call("POST", "/v1/authors", { key: t.ck, body: { name: "Grace Hopper" } });
    expect(await legacy.json()).toMatchObject({ display_name: "Grace Hopper" });
    const edited = await call("PATCH", "/v1/authors/ada-lovelace", {
      key: t.ck,
      body: { display_name: "Ada King" },
    });
    expect(await edited.json()).toMatchObject({ slug: "ada-lovelace", display_name: "Ada King" });
    const both = await call("POST", "/v1/authors", {
      key: t.ck,
      body: { display_name: "One", name: "Other" },
    });
    expect(both.status).toBe(400);
    expect((await call("POST", "/v1/authors", { key: t.ck, body: { bio: "no name" } })).status).toBe(400);
    const post = await createPost(t.ck, {
      title: "By Ada",
      status: "published",
      author_slug: "ada-lovelace",
    });
    const list = (await (await call("GET", "/v1/authors", { key: t.pk, origin: ORIGIN })).json()) as {
      items: Record<string, unknown>[];
    };
    expect(list.items).toEqual([{ slug: "ada-lovelace", display_name: "Ada King", bio: null, avatar: null }]);
    expect((await detail(t.pk, post.slug, ORIGIN)).author).toEqual({
      slug: "ada-lovelace",
      display_name: "Ada King",
    });
  });
});

describe("seo in a post detail only with seo:read", () => {
  it("a key without seo:read gets no seo member; one with it gets the document; the /seo route still requires it", async () => {
    const t = await tenant();
    const post = await createPost(t.ck, { title: "Head", status: "published" });
    await call("PATCH", `/v1/posts/${post.id}/seo`, { key: t.ck, body: { meta_title: "Head title" } });
    const plainPk = await createKey(t.site, { kind: "public", scopes: ["posts:read"] });
    const plainCk = await createKey(t.site, { scopes: ["posts:read"] });
    // Each read twice: the answers with and without seo are cached apart.
    for (let round = 0; round < 2; round++) {
      expect((await detail(t.pk, post.slug, ORIGIN)).seo).toMatchObject({ meta_title: "Head title" });
      expect(await detail(plainPk.key, post.slug, ORIGIN)).not.toHaveProperty("seo");
      expect((await detail(t.ck, post.slug)).seo).toMatchObject({ meta_title: "Head title" });
      expect(await detail(plainCk.key, post.slug)).not.toHaveProperty("seo");
    }
    const list = (await (await call("GET", "/v1/posts", { key: t.pk, origin: ORIGIN })).json()) as {
      items: Record<string, unknown>[];
    };
    expect(list.items[0]).not.toHaveProperty("seo");
    const seo = await call("GET", `/v1/posts/${post.slug}/seo`, { key: plainPk.key, origin: ORIGIN });
    expect(seo.status).toBe(403);
  });
});

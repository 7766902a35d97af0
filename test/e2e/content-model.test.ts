/**
 * Issue 22 (part A) through the gateway, as an integrator and a public page call it: featured images and
 * their variants, the public SEO reads with a pk_ key, categories and tags with counts, authors, soft
 * delete, and the slug rule on the SEO read. Each tenant is made as a client makes one (signup, org, site,
 * keys by the owner's session).
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call, createOrg, createSite, verifiedUser } from "../support/platform";
import { pngImage } from "../support/png";
import { eventually, inbox, payloads, received, trustSecrets } from "../support/webhook-helpers";

const ORIGIN = "https://www.pages.example";

interface Tenant {
  siteId: string;
  owner: string;
  ck: string;
  pk: string;
  /** A ck_ key with posts:read only (no posts:write). */
  reader: string;
}

async function key(owner: string, siteId: string, body: Record<string, unknown>): Promise<string> {
  const res = await call<{ key: string }>("POST", `/api/v1/sites/${siteId}/api-keys`, { token: owner, body });
  if (res.status !== 201) throw new Error(`key ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key;
}

async function tenant(): Promise<Tenant> {
  const session = await verifiedUser();
  const org = await createOrg(session.access_token);
  const site = await createSite(session.access_token, org.id);
  const owner = session.access_token;
  const ck = await key(owner, site.id, {
    name: "writer",
    kind: "secret",
    scopes: ["posts:write", "posts:read", "seo:read", "seo:write", "media:write", "media:read"],
  });
  const pk = await key(owner, site.id, {
    name: "pages",
    kind: "public",
    scopes: ["posts:read", "seo:read"],
    allowed_origins: [ORIGIN],
  });
  const reader = await key(owner, site.id, { name: "reader", kind: "secret", scopes: ["posts:read"] });
  return { siteId: site.id, owner, ck, pk, reader };
}

/** A pk_ call from the allowlisted page. */
const asPage = (t: Tenant) => ({ token: t.pk, headers: { origin: ORIGIN } });

async function post(t: Tenant, body: Record<string, unknown>) {
  const res = await call<{ id: string; slug: string }>("POST", "/v1/posts", { token: t.ck, body });
  if (res.status !== 201) throw new Error(`post ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

describe("the slug rule on the SEO read (§2)", () => {
  it("a ck_ key's SEO read of a slug live in one language and a draft in another is 400 like PATCH; a pk_ key sees the public one", async () => {
    const t = await tenant();
    const en = await post(t, { title: "Hello", slug: "hello", status: "published" });
    await post(t, { title: "Olá", slug: "hello", language: "pt" });
    const ck = await call<{ code: string; details: { languages: string[] } }>("GET", "/v1/posts/hello/seo", {
      token: t.ck,
    });
    expect(ck.status).toBe(400);
    expect(ck.body.code).toBe("AMBIGUOUS_SLUG");
    expect(ck.body.details.languages.sort()).toEqual(["en", "pt"]);
    expect((await call("GET", "/v1/posts/hello/seo?language=en", { token: t.ck })).status).toBe(200);
    // The draft is not public: by language it is 404, and a pk_ key never learns of it.
    expect((await call("GET", "/v1/posts/hello/seo?language=pt", { token: t.ck })).status).toBe(404);
    expect((await call("GET", "/v1/posts/hello/seo", asPage(t))).status).toBe(200);
    expect((await call("GET", `/v1/posts/${en.id}/seo`, { token: t.ck })).status).toBe(200);
  });

  it("GET /v1/posts/{slug}/seo with the slug in two languages and no ?language= is 400 AMBIGUOUS_SLUG", async () => {
    const t = await tenant();
    await post(t, { title: "Hello", slug: "hello", status: "published" });
    await post(t, { title: "Olá", slug: "hello", language: "pt", status: "published" });
    for (const who of [{ token: t.ck }, asPage(t)]) {
      const bare = await call<{ code: string; details: { languages: string[] } }>(
        "GET",
        "/v1/posts/hello/seo",
        who,
      );
      expect(bare.status).toBe(400);
      expect(bare.body.code).toBe("AMBIGUOUS_SLUG");
      expect(bare.body.details.languages.sort()).toEqual(["en", "pt"]);
      const picked = await call("GET", "/v1/posts/hello/seo?language=pt", who);
      expect(picked.status).toBe(200);
    }
  });
});

/** Uploads a PNG through the gateway and waits until its variants are ready. */
async function readyImage(t: Tenant, width: number, height: number): Promise<string> {
  const form = new FormData();
  form.append("file", new File([await pngImage(width, height)], "cover.png", { type: "image/png" }));
  const gateway = (exports as unknown as { default: Fetcher }).default;
  const res = await gateway.fetch(`${BASE}/v1/media`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.ck}`, "cf-connecting-ip": "203.0.113.77" },
    body: form,
  });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  await eventually(
    async () => (await call<{ status: string }>("GET", `/v1/media/${id}`, { token: t.ck })).body.status,
    (status) => status !== "processing",
    30_000,
  );
  return id;
}

interface ImageOut {
  id: string;
  url: string;
  width: number | null;
  height: number | null;
  alt: string;
  srcset: string;
  variants: { width: number | null; url: string; format: string }[];
}

describe("featured images and content images (§1)", () => {
  it("every post answer carries featured_image from the ready variants, on the gateway's origin; content_html uses them", async () => {
    const t = await tenant();
    const media = await readyImage(t, 1400, 700);
    const created = await call<{ id: string; featured_image: ImageOut }>("POST", "/v1/posts", {
      token: t.ck,
      body: {
        title: "With a cover",
        status: "published",
        featured_image_id: media,
        blocks_json: {
          blocks: [
            { type: "image", data: { media_id: media, caption: "First" } },
            { type: "image", data: { media_id: media, caption: "Second" } },
          ],
        },
      },
    });
    expect(created.status).toBe(201);
    const image = created.body.featured_image;
    expect(image).toMatchObject({ id: media, width: 1400, height: 700, alt: "With a cover" });
    expect(image.url).toBe(`${BASE}/media/sites/${t.siteId}/${media}.png`);
    expect(image.variants.map((v) => `${v.width} ${v.format}`)).toEqual([
      "320 image/webp",
      "320 image/png",
      "640 image/webp",
      "640 image/png",
      "1280 image/webp",
      "1280 image/png",
      "1400 image/png",
    ]);
    expect(image.srcset.split(", ").map((c) => c.split(" ")[1])).toEqual(["320w", "640w", "1280w", "1400w"]);
    // Every URL is the gateway's (the public origin in development), and it serves the bytes.
    for (const v of image.variants) {
      expect(v.url.startsWith(`${BASE}/media/`)).toBe(true);
      const bytes = await (exports as unknown as { default: Fetcher }).default.fetch(v.url);
      expect(bytes.status).toBe(200);
      expect(bytes.headers.get("content-type")).toBe(v.format);
      await bytes.body?.cancel();
    }

    const list = await call<{ items: { featured_image: ImageOut }[] }>("GET", "/v1/posts", asPage(t));
    expect(list.body.items[0]!.featured_image).toEqual(image);
    const detail = await call<{ featured_image: ImageOut; featured_image_url: string; content_html: string }>(
      "GET",
      `/v1/posts/${created.body.id}`,
      asPage(t),
    );
    expect(detail.body.featured_image).toEqual(image);
    expect(detail.body.featured_image_url).toBe(image.url);
    const html = detail.body.content_html;
    expect(
      html.match(
        /<picture><source type="image\/webp" srcset="[^"]+ 320w, [^"]+ 640w, [^"]+ 1280w" sizes="\(max-width: 1400px\) 100vw, 1400px">/g,
      ),
    ).toHaveLength(2);
    const imgs = html.match(/<img [^>]*>/g)!;
    expect(imgs[0]).toContain('width="1400" height="700"');
    expect(imgs[0]).not.toContain("loading=");
    expect(imgs[1]).toContain('loading="lazy"');
    expect(html).not.toContain(":8789");

    const patched = await call<{ featured_image: ImageOut | null }>("PATCH", `/v1/posts/${created.body.id}`, {
      token: t.ck,
      body: { title: "Retitled" },
    });
    expect(patched.body.featured_image).toMatchObject({ id: media, alt: "Retitled" });
    const cleared = await call<{ featured_image: ImageOut | null }>("PATCH", `/v1/posts/${created.body.id}`, {
      token: t.ck,
      body: { featured_image_id: null },
    });
    expect(cleared.body.featured_image).toBeNull();
  });

  it("a pk_ key reads the site's SEO and a public post's SEO (seo:read); another origin or no seo:read is 403; a draft is 404", async () => {
    const t = await tenant();
    expect(
      (await call("PATCH", "/v1/site/seo", { token: t.ck, body: { meta_title: "Site T" } })).status,
    ).toBe(200);
    const live = await post(t, { title: "Live", status: "published" });
    const draft = await post(t, { title: "Draft" });
    await call("PATCH", `/v1/posts/${live.id}/seo`, { token: t.ck, body: { meta_title: "Live MT" } });
    const site = await call<Record<string, unknown>>("GET", "/v1/site/seo", asPage(t));
    expect(site.status).toBe(200);
    expect(site.body.meta_title).toBe("Site T");
    const seo = await call<Record<string, unknown>>("GET", `/v1/posts/${live.slug}/seo`, asPage(t));
    expect(seo.status).toBe(200);
    expect(seo.body.meta_title).toBe("Live MT");
    expect((await call("GET", `/v1/posts/${draft.id}/seo`, asPage(t))).status).toBe(404);
    const elsewhere = await call<{ code: string }>("GET", "/v1/site/seo", {
      token: t.pk,
      headers: { origin: "https://evil.example" },
    });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.code).toBe("ORIGIN_NOT_ALLOWED");
    const postsOnly = await key(t.owner, t.siteId, {
      name: "no seo",
      kind: "public",
      scopes: ["posts:read"],
      allowed_origins: [ORIGIN],
    });
    const refused = await call<{ code: string }>("GET", "/v1/site/seo", {
      token: postsOnly,
      headers: { origin: ORIGIN },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("INSUFFICIENT_SCOPE");
  });
});

type Terms = { items: { slug: string; name: string; description: string | null; count: number }[] };

describe("categories and tags (§2)", () => {
  it("count public posts only, per ?language=; a write moves the counts at once; tenants never mix", async () => {
    const t = await tenant();
    const other = await tenant();
    await post(t, {
      title: "A",
      status: "published",
      category_slugs: ["open-source", "news"],
      tag_slugs: ["x"],
    });
    await post(t, { title: "B", status: "published", category_slugs: ["news"], tag_slugs: ["x", "y"] });
    await post(t, { title: "C", status: "published", language: "pt", category_slugs: ["news"] });
    await post(t, { title: "Draft", category_slugs: ["secret"], tag_slugs: ["hidden"] });
    await post(other, { title: "Theirs", status: "published", category_slugs: ["news", "theirs"] });

    const cats = await call<Terms>("GET", "/v1/categories", asPage(t));
    expect(cats.status).toBe(200);
    expect(cats.body.items).toEqual([
      { slug: "news", name: "News", description: null, count: 3 },
      { slug: "open-source", name: "Open source", description: null, count: 1 },
    ]);
    const pt = await call<Terms>("GET", "/v1/categories?language=pt", { token: t.reader });
    expect(pt.body.items).toEqual([{ slug: "news", name: "News", description: null, count: 1 }]);
    const tags = await call<Terms>("GET", "/v1/tags", { token: t.ck });
    expect(tags.body.items).toEqual([
      { slug: "x", name: "X", description: null, count: 2 },
      { slug: "y", name: "Y", description: null, count: 1 },
    ]);
    // A publication moves the counts at once (the list and the counts are one cached family).
    await post(t, { title: "D", status: "published", tag_slugs: ["y"] });
    const after = await call<Terms>("GET", "/v1/tags", { token: t.ck });
    expect(after.body.items.find((i) => i.slug === "y")!.count).toBe(2);
    expect(after.headers.get("etag")).not.toBe(tags.headers.get("etag"));
    const again = await call("GET", "/v1/tags", {
      token: t.ck,
      headers: { "if-none-match": after.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
  });

  it("refusals: no key 401, no posts:read 403, another origin 403, a bad language 400", async () => {
    const t = await tenant();
    expect((await call("GET", "/v1/categories")).status).toBe(401);
    const seoOnly = await key(t.owner, t.siteId, { name: "seo", kind: "secret", scopes: ["seo:read"] });
    const scope = await call<{ code: string }>("GET", "/v1/tags", { token: seoOnly });
    expect([scope.status, scope.body.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    const origin = await call("GET", "/v1/tags", {
      token: t.pk,
      headers: { origin: "https://evil.example" },
    });
    expect(origin.status).toBe(403);
    const bad = await call<{ code: string }>("GET", "/v1/categories?language=%25%25", { token: t.ck });
    expect(bad.status).toBe(400);
  });
});

type AuthorOut = {
  slug: string;
  display_name: string;
  bio: string | null;
  avatar: { id: string; url: string } | null;
  created_at?: string;
};

describe("authors (§2)", () => {
  it("POST makes an author a post can name; PATCH renames it and its posts' byline; GET shows pk_ only public authors' public fields", async () => {
    const t = await tenant();
    const avatar = await readyImage(t, 400, 400);
    const made = await call<AuthorOut>("POST", "/v1/authors", {
      token: t.ck,
      body: { display_name: "Ada Lovelace", bio: "First programmer", avatar_media_id: avatar },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      slug: "ada-lovelace",
      display_name: "Ada Lovelace",
      bio: "First programmer",
    });
    expect(made.body.avatar).toMatchObject({
      id: avatar,
      url: `${BASE}/media/sites/${t.siteId}/${avatar}.png`,
    });
    const second = await call<AuthorOut>("POST", "/v1/authors", {
      token: t.ck,
      body: { name: "Ada Lovelace" },
    });
    expect(second.body.slug).toBe("ada-lovelace-2");
    const taken = await call<{ code: string }>("POST", "/v1/authors", {
      token: t.ck,
      body: { name: "Other", slug: "ada-lovelace" },
    });
    expect([taken.status, taken.body.code]).toEqual([409, "SLUG_TAKEN"]);

    const byline = await call<{ id: string; author: { slug: string; display_name: string } }>(
      "POST",
      "/v1/posts",
      {
        token: t.ck,
        body: { title: "By Ada", status: "published", author_slug: "ada-lovelace" },
      },
    );
    expect(byline.body.author).toEqual({ slug: "ada-lovelace", display_name: "Ada Lovelace" });
    const unknown = await call<{ code: string }>("POST", "/v1/posts", {
      token: t.ck,
      body: { title: "Nobody", author_slug: "nobody-here" },
    });
    expect([unknown.status, unknown.body.code]).toEqual([422, "UNKNOWN_AUTHOR"]);

    // pk_: only authors a public post names, public fields only.
    const publicList = await call<{ items: AuthorOut[] }>("GET", "/v1/authors", asPage(t));
    expect(publicList.body.items.map((a) => a.slug)).toEqual(["ada-lovelace"]);
    expect(Object.keys(publicList.body.items[0]!).sort()).toEqual(["avatar", "bio", "display_name", "slug"]);
    const all = await call<{ items: AuthorOut[] }>("GET", "/v1/authors", { token: t.reader });
    expect(all.body.items.map((a) => a.slug)).toEqual(["ada-lovelace", "ada-lovelace-2"]);
    expect(all.body.items[0]!.created_at).toBeTypeOf("string");

    const renamed = await call<AuthorOut>("PATCH", "/v1/authors/ada-lovelace", {
      token: t.ck,
      body: { display_name: "Ada King", slug: "ada-king", bio: null, avatar_media_id: null },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      slug: "ada-king",
      display_name: "Ada King",
      bio: null,
      avatar: null,
    });
    const read = await call<{ author: unknown }>("GET", `/v1/posts/${byline.body.id}`, asPage(t));
    expect(read.body.author).toEqual({ slug: "ada-king", display_name: "Ada King" });
    const filtered = await call<{ items: { id: string }[] }>("GET", "/v1/posts?author=ada-king", asPage(t));
    expect(filtered.body.items.map((p) => p.id)).toEqual([byline.body.id]);
    const clash = await call<{ code: string }>("PATCH", "/v1/authors/ada-king", {
      token: t.ck,
      body: { slug: "ada-lovelace-2" },
    });
    expect([clash.status, clash.body.code]).toEqual([409, "SLUG_TAKEN"]);
  });

  it("refusals: bad body 400, nothing editable 400, unknown or another site's author 404, another site's avatar 422, scopes 403", async () => {
    const t = await tenant();
    const other = await tenant();
    const theirMedia = await readyImage(other, 64, 64);
    await call("POST", "/v1/authors", { token: other.ck, body: { name: "Theirs", slug: "theirs" } });
    expect((await call("POST", "/v1/authors", { token: t.ck, body: { name: "" } })).status).toBe(400);
    expect(
      (await call("POST", "/v1/authors", { token: t.ck, body: { name: "X", slug: "Not A Slug" } })).status,
    ).toBe(400);
    const media = await call<{ code: string }>("POST", "/v1/authors", {
      token: t.ck,
      body: { name: "X", avatar_media_id: theirMedia },
    });
    expect([media.status, media.body.code]).toEqual([422, "UNKNOWN_MEDIA"]);
    const mine = await call<AuthorOut>("POST", "/v1/authors", { token: t.ck, body: { name: "Mine" } });
    const empty = await call<{ code: string }>("PATCH", `/v1/authors/${mine.body.slug}`, {
      token: t.ck,
      body: {},
    });
    expect([empty.status, empty.body.code]).toEqual([400, "NOTHING_EDITABLE"]);
    for (const slug of ["theirs", "nobody"]) {
      const res = await call<{ code: string }>("PATCH", `/v1/authors/${slug}`, {
        token: t.ck,
        body: { name: "Y" },
      });
      expect([res.status, res.body.code]).toEqual([404, "NOT_FOUND"]);
    }
    const reader = await call<{ code: string }>("POST", "/v1/authors", {
      token: t.reader,
      body: { name: "R" },
    });
    expect([reader.status, reader.body.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    const pk = await call("PATCH", `/v1/authors/${mine.body.slug}`, { ...asPage(t), body: { name: "P" } });
    expect(pk.status).toBe(403);
    expect((await call("GET", "/v1/authors")).status).toBe(401);
  });
});

describe("DELETE /v1/posts/{reference} (§2)", () => {
  it("soft deletes: gone from every read at once, post.deleted delivered, the slug free again, a second DELETE is 404, export leaves it out", async () => {
    const t = await tenant();
    const { box, url } = inbox();
    const hook = await call<{ secret: string }>("POST", `/api/v1/sites/${t.siteId}/webhooks`, {
      token: t.owner,
      body: { url, events: ["post.deleted"] },
    });
    expect(hook.status).toBe(201);
    await trustSecrets(box, [hook.body.secret]);
    const gone = await post(t, { title: "Going", slug: "going", status: "published", category_slugs: ["c"] });
    await post(t, { title: "Staying", status: "published", category_slugs: ["c"] });
    // Warm the public reads first: the delete must not be hidden by a cached answer.
    expect((await call("GET", "/v1/posts/going", asPage(t))).status).toBe(200);
    expect((await call<Terms>("GET", "/v1/categories", asPage(t))).body.items).toEqual([
      { slug: "c", name: "C", description: null, count: 2 },
    ]);

    const res = await call("DELETE", "/v1/posts/going", { token: t.ck });
    expect(res.status).toBe(204);
    expect((await call("GET", "/v1/posts/going", asPage(t))).status).toBe(404);
    expect((await call("GET", `/v1/posts/${gone.id}`, { token: t.ck })).status).toBe(404);
    const list = await call<{ items: { id: string }[] }>("GET", "/v1/posts", asPage(t));
    expect(list.body.items.map((p) => p.id)).not.toContain(gone.id);
    const statuses = await call<{ items: { id: string }[] }>(
      "GET",
      "/v1/posts?status=draft,published,archived",
      {
        token: t.ck,
      },
    );
    expect(statuses.body.items.map((p) => p.id)).not.toContain(gone.id);
    expect((await call<Terms>("GET", "/v1/categories", asPage(t))).body.items).toEqual([
      { slug: "c", name: "C", description: null, count: 1 },
    ]);
    expect((await call("DELETE", `/v1/posts/${gone.id}`, { token: t.ck })).status).toBe(404);
    expect((await call("PATCH", `/v1/posts/${gone.id}`, { token: t.ck, body: { title: "x" } })).status).toBe(
      404,
    );

    const got = await eventually(
      () => received(box),
      (ds) => ds.length >= 1,
    );
    expect(got[0]!.verified).toBe(true);
    expect(payloads(got)[0]).toMatchObject({
      type: "post.deleted",
      data: { post_id: gone.id, slug: "going", status: "deleted" },
    });
    expect(String(payloads(got)[0]!.data.url)).toMatch(/\/going$/);

    // The slug is free again.
    const reuse = await call<{ slug: string }>("POST", "/v1/posts", {
      token: t.ck,
      body: { title: "Again", slug: "going" },
    });
    expect([reuse.status, reuse.body.slug]).toEqual([201, "going"]);
    const exporter = await key(t.owner, t.siteId, {
      name: "export",
      kind: "secret",
      scopes: ["export", "posts:write"],
    });
    const gateway = (exports as unknown as { default: Fetcher }).default;
    const exported = await gateway.fetch(`${BASE}/v1/export?resource=posts`, {
      headers: { authorization: `Bearer ${exporter}`, "cf-connecting-ip": "203.0.113.78" },
    });
    expect(exported.status).toBe(200);
    const lines = (await exported.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { title: string });
    expect(lines.map((l) => l.title).sort()).toEqual(["Again", "Staying"]);
  });

  it("refusals: ambiguous slug 400 (then ?language= deletes), another site's post 404, reader and pk_ 403, no key 401", async () => {
    const t = await tenant();
    const other = await tenant();
    const theirs = await post(other, { title: "Theirs", status: "published" });
    await post(t, { title: "Hi", slug: "hi", status: "published" });
    const pt = await post(t, { title: "Oi", slug: "hi", language: "pt" });
    const amb = await call<{ code: string }>("DELETE", "/v1/posts/hi", { token: t.ck });
    expect([amb.status, amb.body.code]).toEqual([400, "AMBIGUOUS_SLUG"]);
    expect((await call("DELETE", "/v1/posts/hi?language=pt", { token: t.ck })).status).toBe(204);
    expect((await call("GET", `/v1/posts/${pt.id}/source`, { token: t.ck })).status).toBe(404);
    // Only one language is left: the slug is no longer ambiguous.
    expect((await call("GET", "/v1/posts/hi/source", { token: t.ck })).status).toBe(200);
    const wall = await call<{ code: string }>("DELETE", `/v1/posts/${theirs.id}`, { token: t.ck });
    expect([wall.status, wall.body.code]).toEqual([404, "NOT_FOUND"]);
    expect((await call("GET", `/v1/posts/${theirs.id}`, { token: other.ck })).status).toBe(200);
    const reader = await call<{ code: string }>("DELETE", "/v1/posts/hi", { token: t.reader });
    expect([reader.status, reader.body.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    expect((await call("DELETE", "/v1/posts/hi", asPage(t))).status).toBe(403);
    expect((await call("DELETE", "/v1/posts/hi")).status).toBe(401);
  });
});

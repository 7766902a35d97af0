/**
 * Site groups at content's HTTP ways in (docs/decisions/site-groups.md, "How each way in finds its group",
 * issue 38): an API key through the directory's key_sites, the dashboard and the staff routes by the path's
 * site, preview tokens by the site they carry, feeds by slug through the directory, media and forms by the
 * path's site. Two sites in different groups each time (placement alternates: checked with the directory),
 * so a request that ran on one fixed group would miss the other site's rows; the rows each request wrote are
 * in its site's group and in no other.
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/content/core/bindings";
import { enterGroup, requestRouting, routeToSite } from "../../src/content/core/routing";
import { problem } from "../../src/content/errors";
import { newId } from "../../src/lib/ids";
import { ApiError, handleError } from "../../src/lib/problem";
import type { SiteProjection } from "../../src/lib/rpc";
import {
  contentDbOf,
  contentDirectory,
  contentGroupDb,
  contentGroupOf,
  contentGroups,
  otherContentDbs,
} from "../support/content-groups";
import {
  BASE,
  call,
  content,
  createKey,
  createPost,
  makeSite,
  ORIGIN,
  ownerHeaders,
  seedMedia,
  staffHeaders,
  testEnv,
} from "../support/content-helpers";
import { contactValues, createForm, freshIp, storedLeads, submit } from "../support/leads-helpers";

/** Sites made until two are in different groups; each with a secret and a public key. */
async function tenantsInTwoGroups(overrides: Partial<SiteProjection> = {}) {
  const byGroup = new Map<string, SiteProjection>();
  for (let i = 0; i < 40 && byGroup.size < 2; i++) {
    const site = await makeSite(overrides);
    const group = await contentGroupOf(site.id);
    if (!byGroup.has(group)) byGroup.set(group, site);
  }
  expect(byGroup.size).toBe(2);
  return Promise.all(
    [...byGroup].map(async ([group, site]) => {
      const secret = await createKey(site, {
        scopes: ["posts:write", "posts:read", "seo:read", "seo:write", "media:read", "sites:read"],
      });
      const pub = await createKey(site, { kind: "public", scopes: ["posts:read"] });
      return { group, site, ck: secret.key, pk: pub.key, secretKey: secret };
    }),
  );
}

/** How many rows of `table` name the site in its own group, and in every other group together. */
async function rowsOf(table: string, column: string, value: string, siteId: string) {
  const count = async (db: D1Database) =>
    (await db
      .prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`)
      .bind(value)
      .first<{ n: number }>())!.n;
  let elsewhere = 0;
  for (const db of await otherContentDbs(siteId)) elsewhere += await count(db);
  return { own: await count(await contentDbOf(siteId)), elsewhere };
}

/**
 * A status, body and bookmark, to compare two answers for sameness (a refusal carries no bookmark: whether
 * the request found a group must not show).
 */
async function answer(res: Response) {
  return { status: res.status, body: await res.text(), bookmark: res.headers.get("x-bookmark") };
}

/** The 401 of a key nobody ever made: status, body and the challenge. */
async function unknownKeyAnswer(path = "/v1/posts") {
  const res = await call("GET", path, { key: `ck_${"A".repeat(43)}` });
  return { ...(await answer(res)), challenge: res.headers.get("www-authenticate") };
}

describe("API keys: the key's site through the directory, then its group", () => {
  it("each site's keys write and read its own group; creation records the directory row and the key in the site's group only", async () => {
    const tenants = await tenantsInTwoGroups();
    expect(tenants[0]!.group).not.toBe(tenants[1]!.group);
    for (const t of tenants) {
      const keySite = await contentDirectory
        .prepare("SELECT count(*) AS n FROM key_sites WHERE site_id = ?")
        .bind(t.site.id)
        .first<{ n: number }>();
      expect(keySite!.n).toBe(2);
      expect(await rowsOf("api_keys", "site_id", t.site.id, t.site.id)).toEqual({ own: 2, elsewhere: 0 });

      const post = await createPost(t.ck, { title: `In ${t.group}`, status: "published" });
      expect(await rowsOf("posts", "id", post.id, t.site.id)).toEqual({ own: 1, elsewhere: 0 });
      const read = await call("GET", `/v1/posts/${post.id}`, { key: t.ck });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { title: string }).title).toBe(`In ${t.group}`);
      // The read ran in a D1 session of the site's group: its bookmark comes back.
      expect(read.headers.get("x-bookmark")).toMatch(/^g\d{3}\.[0-9a-f]{8}-/);

      const published = await call("POST", "/v1/posts", {
        key: t.ck,
        body: { title: `Live ${t.group}`, status: "published" },
      });
      expect(published.status).toBe(201);
      const slug = ((await published.json()) as { slug: string }).slug;
      const pub = await call("GET", `/v1/posts/${slug}`, { key: t.pk, origin: ORIGIN });
      expect(pub.status).toBe(200);
    }
    // A key reads its own site only: the other site's post is the same 404 as a missing one.
    const [a, b] = tenants;
    const bPost = await createPost(b!.ck, { title: "B's", status: "published" });
    const crossed = await call("GET", `/v1/posts/${bPost.id}`, { key: a!.ck });
    const missing = await call("GET", `/v1/posts/${newId()}`, { key: a!.ck });
    expect(await answer(crossed)).toEqual(await answer(missing));
    expect(crossed.status).toBe(404);
  });

  it("a key whose directory row is missing is the same 401 as a key nobody made (its row in the group notwithstanding)", async () => {
    const site = await makeSite();
    const key = await createKey(site);
    // Removed before the key's first use, so no isolate has its site cached.
    await contentDirectory.prepare("DELETE FROM key_sites WHERE site_id = ?").bind(site.id).run();
    expect(await rowsOf("api_keys", "id", key.id, site.id)).toEqual({ own: 1, elsewhere: 0 });
    const res = await call("GET", "/v1/posts", { key: key.key });
    expect({ ...(await answer(res)), challenge: res.headers.get("www-authenticate") }).toEqual(
      await unknownKeyAnswer(),
    );
    expect(res.status).toBe(401);
    const write = await call("POST", "/v1/posts", {
      key: key.key,
      body: { title: "no" },
    });
    expect(write.status).toBe(401);
  });

  it("a revoked key (its site known, the request routed) is the same 401 as a key nobody made, headers too", async () => {
    const site = await makeSite();
    const key = await createKey(site);
    expect((await call("GET", "/v1/posts", { key: key.key })).headers.get("x-bookmark")).toMatch(
      /^g\d{3}\.[0-9a-f]{8}-/,
    );
    const revoked = await call("DELETE", `/api/v1/sites/${site.id}/api-keys/${key.id}`, {
      headers: ownerHeaders(site),
    });
    expect(revoked.status).toBe(204);
    const res = await call("GET", "/v1/posts", { key: key.key });
    expect({ ...(await answer(res)), challenge: res.headers.get("www-authenticate") }).toEqual(
      await unknownKeyAnswer(),
    );
    expect(res.headers.get("x-bookmark")).toBeNull();
  });

  it("a directory row naming another site is no key: the key's row is not in that site's group", async () => {
    const [a, b] = await tenantsInTwoGroups();
    const key = await createKey(a!.site);
    // Point A's keys' hashes at B (a group without their rows) before their first use.
    await contentDirectory
      .prepare("UPDATE key_sites SET site_id = ? WHERE site_id = ?")
      .bind(b!.site.id, a!.site.id)
      .run();
    const res = await call("GET", "/v1/posts", { key: key.key });
    expect(res.status).toBe(401);
  });
});

describe("signed-in people: the path's site", () => {
  it("the dashboard and the key, webhook and form administration of each site run on its group", async () => {
    const tenants = await tenantsInTwoGroups({ forms_enabled: true });
    for (const t of tenants) {
      const headers = ownerHeaders(t.site);
      const post = await createPost(t.ck, { title: `Dashboard ${t.group}` });
      const listed = await call("GET", `/api/v1/sites/${t.site.id}/posts`, { headers });
      expect(listed.status).toBe(200);
      const items = ((await listed.json()) as { items: { id: string }[] }).items.map((p) => p.id);
      expect(items).toEqual([post.id]);
      const one = await call("GET", `/api/v1/sites/${t.site.id}/posts/${post.id}`, { headers });
      expect(one.status).toBe(200);

      const keys = await call("GET", `/api/v1/sites/${t.site.id}/api-keys`, { headers });
      expect(keys.status).toBe(200);
      expect(((await keys.json()) as { items: unknown[] }).items).toHaveLength(2);
      const hooks = await call("GET", `/api/v1/sites/${t.site.id}/webhooks`, { headers });
      expect(hooks.status).toBe(200);
      const form = await createForm(t.site, { name: `Form ${t.group}` });
      expect(await rowsOf("forms", "id", form.id, t.site.id)).toEqual({ own: 1, elsewhere: 0 });
    }
  });

  it("another tenant's site id, and a site content never met, answer exactly as a missing site; without a session, 401 as before", async () => {
    const [a, b] = await tenantsInTwoGroups({ forms_enabled: true });
    const unknown = newId();
    const as = ownerHeaders(a!.site);
    for (const path of ["posts", "api-keys", "webhooks", "forms", "media", "leads"]) {
      const other = await answer(await call("GET", `/api/v1/sites/${b!.site.id}/${path}`, { headers: as }));
      const never = await answer(await call("GET", `/api/v1/sites/${unknown}/${path}`, { headers: as }));
      expect(other.status, path).toBe(404);
      expect(other, path).toEqual(never);
      // No session: the unknown site is the same 401 a known site gives.
      const anonymousKnown = await answer(await call("GET", `/api/v1/sites/${a!.site.id}/${path}`));
      const anonymousUnknown = await answer(await call("GET", `/api/v1/sites/${unknown}/${path}`));
      expect(anonymousUnknown, path).toEqual(anonymousKnown);
      expect(anonymousKnown.status, path).toBe(401);
    }
    // A write too (an API key's creation needs no identity call), and nothing lands anywhere.
    const keyOther = await call("POST", `/api/v1/sites/${b!.site.id}/api-keys`, {
      headers: as,
      body: { name: "x", kind: "secret", scopes: ["posts:read"] },
    });
    const keyNever = await call("POST", `/api/v1/sites/${unknown}/api-keys`, {
      headers: as,
      body: { name: "x", kind: "secret", scopes: ["posts:read"] },
    });
    expect(await answer(keyOther)).toEqual(await answer(keyNever));
    expect(keyOther.status).toBe(404);
    expect(await rowsOf("api_keys", "site_id", b!.site.id, b!.site.id)).toEqual({ own: 2, elsewhere: 0 });
    // A person who holds both sites still reaches each in its own group.
    const both = staffHeaders("user-both", {
      org: [
        { org_id: a!.site.org_id, role: "org_owner" },
        { org_id: b!.site.org_id, role: "org_owner" },
      ],
    });
    for (const t of [a!, b!]) {
      expect((await call("GET", `/api/v1/sites/${t.site.id}/posts`, { headers: both })).status).toBe(200);
    }
  });
});

describe("keyless ways in", () => {
  it("preview tokens carry their site: each site's link reads its group; a swapped or unknown site is the missing link's 404", async () => {
    const tenants = await tenantsInTwoGroups();
    const tokens: string[] = [];
    for (const t of tenants) {
      const post = await createPost(t.ck, { title: `Draft ${t.group}` });
      const made = await call("POST", `/v1/posts/${post.id}/preview`, { key: t.ck });
      expect(made.status).toBe(200);
      const { url } = (await made.json()) as { url: string };
      const token = url.slice(url.lastIndexOf("/") + 1);
      expect(token).toMatch(new RegExp(`^p3\\.${t.site.id}\\.[A-Za-z0-9_-]{43}$`));
      tokens.push(token);
      const read = await content.fetch(new Request(`${BASE}/v1/preview/${token}`));
      expect(read.status).toBe(200);
      expect(((await read.json()) as { title: string }).title).toBe(`Draft ${t.group}`);
    }
    const [a, b] = tenants;
    const missing = await answer(
      await content.fetch(new Request(`${BASE}/v1/preview/p3.${newId()}.${"A".repeat(43)}`)),
    );
    expect(missing.status).toBe(404);
    const secretOf = (token: string) => token.slice(token.lastIndexOf(".") + 1);
    const tampered = [
      `p3.${b!.site.id}.${secretOf(tokens[0]!)}`, // A's secret under B's site (B's group)
      `p3.${newId()}.${secretOf(tokens[0]!)}`, // a site content never met
      `p3.${a!.site.id.toLowerCase()}.${secretOf(tokens[0]!)}`, // not the canonical id
      `p2.${secretOf(tokens[0]!)}`, // the old format
      `p3.${a!.site.id}`,
      `p3.not-a-site-id-at-all-nope.${secretOf(tokens[0]!)}`,
    ];
    for (const bad of tampered) {
      expect(await answer(await content.fetch(new Request(`${BASE}/v1/preview/${bad}`))), bad).toEqual(
        missing,
      );
    }
  });

  it("feeds and sitemaps by slug and by id read the site's group; an unknown slug is the missing site's 404", async () => {
    const tenants = await tenantsInTwoGroups();
    for (const t of tenants) {
      const res = await call("POST", "/v1/posts", {
        key: t.ck,
        body: { title: `Feed ${t.group}`, status: "published" },
      });
      expect(res.status).toBe(201);
      for (const ref of [t.site.slug, t.site.id]) {
        const feed = await call("GET", `/v1/sites/${ref}/feed.xml`);
        expect(feed.status, ref).toBe(200);
        expect(await feed.text()).toContain(`Feed ${t.group}`);
        const sitemap = await call("GET", `/v1/sites/${ref}/sitemap.xml`);
        expect(sitemap.status, ref).toBe(200);
      }
    }
    const unknownSlug = await answer(await call("GET", "/v1/sites/no-such-slug-anywhere/feed.xml"));
    const unknownId = await answer(await call("GET", `/v1/sites/${newId()}/sitemap.xml`));
    expect(unknownSlug.status).toBe(404);
    expect(unknownSlug).toEqual(unknownId);
    // An archived site (known to the directory) answers the same.
    const [a] = tenants;
    await content.syncSite({
      ...a!.site,
      status: "archived",
      updated_at: new Date(Date.now() + 5000).toISOString(),
    });
    expect(await answer(await call("GET", `/v1/sites/${a!.site.slug}/feed.xml`))).toEqual(unknownSlug);
  });

  it("media files: the media row is read in the site's group (a deletion there stops the file); an unknown site has no files", async () => {
    const tenants = await tenantsInTwoGroups();
    for (const t of tenants) {
      const id = await seedMedia(t.site.id);
      const key = `sites/${t.site.id}/${id}.png`;
      await testEnv.MEDIA.put(key, new Uint8Array([1, 2, 3]), { httpMetadata: { contentType: "image/png" } });
      expect((await call("GET", `/media/${key}`)).status).toBe(200);
      await (await contentDbOf(t.site.id))
        .prepare("UPDATE media SET status = 'deleted' WHERE id = ?")
        .bind(id)
        .run();
      expect((await call("GET", `/media/${key}`)).status).toBe(404);
    }
    const stray = `sites/${newId()}/${newId()}.png`;
    await testEnv.MEDIA.put(stray, new Uint8Array([1]), { httpMetadata: { contentType: "image/png" } });
    expect((await call("GET", `/media/${stray}`)).status).toBe(404);
  });

  it("forms: each site's form and submission run on its group; another site's or an unknown site's form is the missing form's 404", async () => {
    const tenants = await tenantsInTwoGroups({ forms_enabled: true });
    const forms: string[] = [];
    for (const t of tenants) {
      const form = await createForm(t.site);
      forms.push(form.id);
      const visitor = await call("GET", `/v1/sites/${t.site.id}/forms/${form.id}`);
      expect(visitor.status).toBe(200);
      const sent = await submit(t.site, form.id, contactValues({ message: `to ${t.group}` }), {
        ip: freshIp(),
      });
      expect(sent.status).toBe(202);
      const leads = await storedLeads(t.site.id);
      expect(leads).toHaveLength(1);
      expect(await rowsOf("leads", "site_id", t.site.id, t.site.id)).toEqual({ own: 1, elsewhere: 0 });
    }
    const [a, b] = tenants;
    const missing = await answer(await call("GET", `/v1/sites/${a!.site.id}/forms/${newId()}`));
    expect(missing.status).toBe(404);
    expect(await answer(await call("GET", `/v1/sites/${b!.site.id}/forms/${forms[0]}`))).toEqual(missing);
    expect(await answer(await call("GET", `/v1/sites/${newId()}/forms/${forms[0]}`))).toEqual(missing);
    const unknownSite = { ...a!.site, id: newId() };
    const sent = await submit(unknownSite, forms[0]!, contactValues(), { ip: freshIp(), token: null });
    expect(await answer(sent)).toEqual(missing);
  });
});

describe("core/routing.ts", () => {
  /** A bare app of the routing middleware over the test's group databases and directory. */
  function routingApp() {
    const app = new Hono<AppEnv>();
    app.onError((error, c) =>
      error instanceof ApiError ? handleError(error, c) : c.text(error.message, 500),
    );
    app.use("*", requestRouting());
    app.get("/v1/unrouted", async (c) => c.json(await c.env.DB.prepare("SELECT 1 AS one").first()));
    app.get("/v1/sites/:site_id/name", async (c) => {
      const env = await routeToSite(c, c.req.param("site_id"), () => problem("NOT_FOUND", "No such site."));
      const again = enterGroup(c, await contentGroupOf(c.req.param("site_id")));
      expect(again.env).toBe(env);
      const row = await c.env.DB.prepare("SELECT name FROM sites WHERE id = ?")
        .bind(c.req.param("site_id"))
        .first();
      return c.json({
        row,
        primary: c.get("primaryDb") === contentGroupDb(await contentGroupOf(c.req.param("site_id"))),
      });
    });
    app.get("/v1/cross/:site_id", async (c) => {
      await routeToSite(c, c.req.param("site_id"), () => problem("NOT_FOUND", "No such site."));
      const own = await contentGroupOf(c.req.param("site_id"));
      enterGroup(c, [...contentGroups.keys()].find((g) => g !== own) as string);
      return c.text("crossed");
    });
    const env = {
      CONTENT_GROUPS: [...contentGroups.keys()].join(","),
      DIRECTORY: contentDirectory,
      ...Object.fromEntries([...contentGroups].map(([g, db]) => [`DB_${g.toUpperCase()}`, db])),
    };
    return (path: string) => app.request(path, {}, env);
  }

  it("a request that reads its database before it is routed fails; once routed it reads its site's group (again: a no-op), never two groups", async () => {
    const fetch = routingApp();
    const unrouted = await fetch("/v1/unrouted");
    expect(unrouted.status).toBe(500);
    expect(await unrouted.text()).toContain("before it was routed");
    for (const name of ["In one", "In the other"]) {
      const site = await makeSite({ name });
      const res = await fetch(`/v1/sites/${site.id}/name`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ row: { name }, primary: true });
      expect(res.headers.get("x-bookmark")).toMatch(/^g\d{3}\.[0-9a-f]{8}-/);
      const crossed = await fetch(`/v1/cross/${site.id}`);
      expect(crossed.status).toBe(500);
      expect(await crossed.text()).toContain("cannot move to");
    }
    expect((await fetch(`/v1/sites/${newId()}/name`)).status).toBe(404);
  });
});

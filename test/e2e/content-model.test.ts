/**
 * Issue 22 (part A) through the gateway, as an integrator and a public page call it: featured images and
 * their variants, the public SEO reads with a pk_ key, categories and tags with counts, authors, soft
 * delete, and the slug rule on the SEO read. Each tenant is made as a client makes one (signup, org, site,
 * keys by the owner's session).
 */
import { describe, expect, it } from "vitest";
import { call, createOrg, createSite, verifiedUser } from "../support/platform";

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

describe("the slug rule on the SEO read", () => {
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

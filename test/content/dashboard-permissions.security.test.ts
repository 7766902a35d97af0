/**
 * Issue 34: content's dashboard routes (`/api/v1/sites/{site_id}/…`) read the one permission model of site
 * administration (src/lib/site-permissions.ts, its content columns), checked against the same table as
 * sites' by-id routes and content's key administration (test/support/site-permission-table.ts). For each
 * role and each permission a dashboard route checks: a role holding it gets past the check (the operation
 * runs), a role holding other permissions on the site gets 403 FORBIDDEN naming the missing one, and a
 * person holding nothing (content keeps no shares, so a share grants nothing here) gets the missing site's
 * 404. The per-post rules (own posts, drafts, publishing) are the posts service's (part 2).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/content/core/bindings";
import { newId } from "../../src/lib/ids";
import type { SiteGrant, SiteGrantQuery, SiteProjection } from "../../src/lib/rpc";
import type { SitePermission } from "../../src/lib/site-permissions";
import { call, contentRequest, createKey, createPost, seedMedia } from "../support/content-helpers";
import { formsSite } from "../support/leads-helpers";
import { PERMISSION_TABLE, type PermissionRow } from "../support/site-permission-table";
import { fetchThrough } from "../support/storage-hops";

interface Probe {
  permission: SitePermission;
  what: string;
  /** The request a person holding the permission makes (`as`: a request of that person). */
  run: (site: SiteProjection, as: Person) => Promise<Response>;
  /**
   * What it answers when allowed; absent where the posts service's own rules (own posts, a display name:
   * issue 34 part 2) decide after the permission check: then only "past the check" is asserted.
   */
  status?: number;
}

const base = (site: SiteProjection) => `/api/v1/sites/${site.id}`;

/** One dashboard operation per content permission a route checks (posts:edit_any: none alone). */
const PROBES: Probe[] = [
  {
    permission: "posts:read",
    what: "GET …/posts (drafts included)",
    run: (site, as) => as("GET", `${base(site)}/posts`),
    status: 200,
  },
  {
    permission: "posts:write_own",
    what: "POST …/posts (a draft)",
    run: (site, as) => as("POST", `${base(site)}/posts`, { title: "Draft" }),
  },
  {
    permission: "posts:publish",
    what: "POST …/posts/{reference}/unpublish",
    run: async (site, as) => {
      const key = await createKey(site, { scopes: ["posts:write"] });
      const post = await createPost(key.key, { title: "Live", status: "published" });
      return as("POST", `${base(site)}/posts/${post.id}/unpublish`);
    },
  },
  {
    permission: "media:read",
    what: "GET …/media",
    run: (site, as) => as("GET", `${base(site)}/media`),
    status: 200,
  },
  {
    permission: "media:upload",
    what: "DELETE …/media/{id}",
    run: async (site, as) => as("DELETE", `${base(site)}/media/${await seedMedia(site.id)}`),
    status: 204,
  },
  {
    permission: "authors:manage",
    what: "POST …/authors",
    run: (site, as) => as("POST", `${base(site)}/authors`, { name: `Guest ${newId().slice(-6)}` }),
    status: 201,
  },
  {
    permission: "taxonomy:manage",
    what: "PATCH …/categories/{slug} (issue 35)",
    run: async (site, as) => {
      const key = await createKey(site, { scopes: ["posts:write"] });
      await createPost(key.key, { title: "Filed", category_slugs: ["filed"] });
      return as("PATCH", `${base(site)}/categories/filed`, { name: "Filed away" });
    },
    status: 200,
  },
  {
    permission: "leads:read",
    what: "GET …/leads",
    run: (site, as) => as("GET", `${base(site)}/leads`),
    status: 200,
  },
];

/** What content sees of the row: its permissions, none through a share (content keeps no shares). */
function contentMay(row: PermissionRow): SitePermission[] {
  return row.share ? [] : row.may;
}

/** A request of one person of the table, through the content Worker. */
type Person = (method: string, path: string, body?: unknown) => Promise<Response>;

/**
 * A person holding the row's role: the edge headers the gateway sets, and an identity that says the same of
 * them (a dashboard write re-reads the grant from identity, issue 34; identity never describes a role merely
 * NAMED as an owner's, which the table keeps as the edge's). The re-read itself is tested with the real
 * identity in test/content/person-writes.integration.test.ts.
 */
function personOf(row: PermissionRow, site: SiteProjection): Person {
  const s = { id: site.id, orgId: site.org_id };
  const orgs = row.orgs(s, newId());
  const sites = row.sites(s);
  const headers = {
    "x-user-id": newId(),
    "x-session-id": newId(),
    "x-session-kind": "staff",
    "x-org-memberships": JSON.stringify(orgs),
    "x-site-memberships": JSON.stringify(sites),
  };
  const identity = {
    displayName: async () => "Table person",
    siteGrant: async (q: SiteGrantQuery): Promise<SiteGrant> => ({
      session_active: true,
      org_memberships: orgs.filter((m) => m.org_id === q.org_id),
      site_memberships: sites.filter((m) => m.site_id === q.site_id).map((m) => ({ permissions: [], ...m })),
      display_name: "Table person",
    }),
  };
  const workerEnv = { ...(env as unknown as Env), IDENTITY: identity as unknown as Fetcher };
  return (method, path, body) =>
    fetchThrough(
      workerEnv,
      contentRequest(method, path, { headers, ...(body !== undefined ? { body } : {}) }),
    );
}

describe("content's dashboard routes follow the shared permission table", () => {
  it("every content permission but posts:edit_any has a probe", () => {
    const probed = new Set(PROBES.map((p) => p.permission));
    expect(probed).toEqual(
      new Set([
        "posts:read",
        "posts:write_own",
        "posts:publish",
        "media:read",
        "media:upload",
        "authors:manage",
        "taxonomy:manage",
        "leads:read",
      ]),
    );
  });

  for (const row of PERMISSION_TABLE) {
    const may = contentMay(row);
    it(`${row.name}: ${may.length === 0 ? "the missing site's 404 everywhere" : "passes what it holds, 403 naming the rest"}`, async () => {
      const site = await formsSite();
      const as = personOf(row, site);
      for (const probe of PROBES) {
        const res = await probe.run(site, as);
        const text = await res.clone().text();
        if (may.includes(probe.permission)) {
          if (probe.status) expect(res.status, `${probe.what}: ${text}`).toBe(probe.status);
          expect([401, 404], `${probe.what}: ${text}`).not.toContain(res.status);
          if (res.status === 403) expect(JSON.parse(text).details?.missing).not.toBe(probe.permission);
        } else if (may.length === 0) {
          expect(res.status, `${probe.what}: ${text}`).toBe(404);
          const missing = await as("GET", `/api/v1/sites/${newId()}/posts`);
          expect(text).toBe(await missing.text());
        } else {
          expect(res.status, `${probe.what}: ${text}`).toBe(403);
          const body = JSON.parse(text) as { code: string; details?: { missing?: string } };
          expect(body.code).toBe("FORBIDDEN");
          expect(body.details?.missing).toBe(probe.permission);
        }
      }
    });
  }
});

describe("the dashboard routes in the OpenAPI document", () => {
  it("are tagged Dashboard, use the staff Bearer, and show examples", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    type Op = {
      tags?: string[];
      security?: Record<string, string[]>[];
      requestBody?: { content: Record<string, { example?: unknown }> };
    };
    const doc = (await res.json()) as { paths: Record<string, Record<string, Op>> };
    const dashboard = Object.entries(doc.paths).filter(([path]) =>
      /^\/api\/v1\/sites\/\{site_id\}\/(posts|media|categories|tags|authors|leads)/.test(path),
    );
    expect(dashboard.length).toBeGreaterThan(10);
    for (const [path, item] of dashboard)
      for (const [method, op] of Object.entries(item)) {
        expect(op.tags, `${method} ${path}`).toContain("Dashboard");
        expect(
          op.security?.flatMap((s) => Object.keys(s)),
          `${method} ${path}`,
        ).toContain("bearerAuth");
      }
    const create = doc.paths["/api/v1/sites/{site_id}/posts"]?.post;
    expect(create?.requestBody?.content["application/json"]?.example).toMatchObject({
      markdown: expect.any(String),
    });
  });
});

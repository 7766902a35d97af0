/**
 * Issue 34: content's dashboard routes (`/api/v1/sites/{site_id}/…`) read the one permission model of site
 * administration (src/lib/site-permissions.ts, its content columns), checked against the same table as
 * sites' by-id routes and content's key administration (test/support/site-permission-table.ts). For each
 * role and each permission a dashboard route checks: a role holding it gets past the check (the operation
 * runs), a role holding other permissions on the site gets 403 FORBIDDEN naming the missing one, and a
 * person holding nothing (content keeps no shares, so a share grants nothing here) gets the missing site's
 * 404. The per-post rules (own posts, drafts, publishing) are the posts service's (part 2).
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import type { SiteProjection } from "../../src/lib/rpc";
import type { SitePermission } from "../../src/lib/site-permissions";
import { call, createKey, createPost, seedMedia } from "../support/content-helpers";
import { formsSite } from "../support/leads-helpers";
import { PERMISSION_TABLE, type PermissionRow } from "../support/site-permission-table";

interface Probe {
  permission: SitePermission;
  what: string;
  /** The request a person holding the permission makes. */
  run: (site: SiteProjection, headers: Record<string, string>) => Promise<Response>;
  /**
   * What it answers when allowed; absent where the posts service's own rules (own posts, a display name:
   * issue 34 part 2) decide after the permission check: then only "past the check" is asserted.
   */
  status?: number;
}

const base = (site: SiteProjection) => `/api/v1/sites/${site.id}`;

/** One dashboard operation per content permission a route checks (taxonomy:manage and posts:edit_any: none alone). */
const PROBES: Probe[] = [
  {
    permission: "posts:read",
    what: "GET …/posts (drafts included)",
    run: (site, headers) => call("GET", `${base(site)}/posts`, { headers }),
    status: 200,
  },
  {
    permission: "posts:write_own",
    what: "POST …/posts (a draft)",
    run: (site, headers) => call("POST", `${base(site)}/posts`, { headers, body: { title: "Draft" } }),
  },
  {
    permission: "posts:publish",
    what: "POST …/posts/{reference}/unpublish",
    run: async (site, headers) => {
      const key = await createKey(site, { scopes: ["posts:write"] });
      const post = await createPost(key.key, { title: "Live", status: "published" });
      return call("POST", `${base(site)}/posts/${post.id}/unpublish`, { headers });
    },
  },
  {
    permission: "media:read",
    what: "GET …/media",
    run: (site, headers) => call("GET", `${base(site)}/media`, { headers }),
    status: 200,
  },
  {
    permission: "media:upload",
    what: "DELETE …/media/{id}",
    run: async (site, headers) =>
      call("DELETE", `${base(site)}/media/${await seedMedia(site.id)}`, { headers }),
    status: 204,
  },
  {
    permission: "authors:manage",
    what: "POST …/authors",
    run: (site, headers) =>
      call("POST", `${base(site)}/authors`, { headers, body: { name: `Guest ${newId().slice(-6)}` } }),
    status: 201,
  },
  {
    permission: "leads:read",
    what: "GET …/leads",
    run: (site, headers) => call("GET", `${base(site)}/leads`, { headers }),
    status: 200,
  },
];

/** What content sees of the row: its permissions, none through a share (content keeps no shares). */
function contentMay(row: PermissionRow): SitePermission[] {
  return row.share ? [] : row.may;
}

function headersOf(row: PermissionRow, site: SiteProjection): Record<string, string> {
  const s = { id: site.id, orgId: site.org_id };
  return {
    "x-user-id": newId(),
    "x-session-kind": "staff",
    "x-org-memberships": JSON.stringify(row.orgs(s, newId())),
    "x-site-memberships": JSON.stringify(row.sites(s)),
  };
}

describe("content's dashboard routes follow the shared permission table", () => {
  it("every content permission but taxonomy:manage and posts:edit_any has a probe", () => {
    const probed = new Set(PROBES.map((p) => p.permission));
    expect(probed).toEqual(
      new Set([
        "posts:read",
        "posts:write_own",
        "posts:publish",
        "media:read",
        "media:upload",
        "authors:manage",
        "leads:read",
      ]),
    );
  });

  for (const row of PERMISSION_TABLE) {
    const may = contentMay(row);
    it(`${row.name}: ${may.length === 0 ? "the missing site's 404 everywhere" : "passes what it holds, 403 naming the rest"}`, async () => {
      const site = await formsSite();
      const headers = headersOf(row, site);
      for (const probe of PROBES) {
        const res = await probe.run(site, headers);
        const text = await res.clone().text();
        if (may.includes(probe.permission)) {
          if (probe.status) expect(res.status, `${probe.what}: ${text}`).toBe(probe.status);
          expect([401, 404], `${probe.what}: ${text}`).not.toContain(res.status);
          if (res.status === 403) expect(JSON.parse(text).details?.missing).not.toBe(probe.permission);
        } else if (may.length === 0) {
          expect(res.status, `${probe.what}: ${text}`).toBe(404);
          const missing = await call("GET", `/api/v1/sites/${newId()}/posts`, { headers });
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

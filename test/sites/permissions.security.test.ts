/**
 * The permission matrix of the by-id routes (docs/decisions.md "Who may do what with a site"): every
 * built by-id operation of the spec, called by every role; a member lacking the operation's permission
 * gets 403 FORBIDDEN and nothing changes, a member holding it gets past the matrix. The expected table
 * below is written out by hand (not read from src/sites/permissions.ts), so a change of the code's table
 * fails here.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import type { SitePermission } from "../../src/sites/permissions";
import { testSpecs } from "../support/corpora-binding";
import { BY_ID_OPERATIONS, byIdPath } from "../support/site-operations";
import { api, type EdgeHeaders, makeSite, sitesEnv, storedRow } from "../support/sites-helpers";
import { builtSpecOperations, hasPathParameter } from "../support/spec-operations";

const ALL: SitePermission[] = ["read", "settings", "applets", "themes", "legal", "delete"];
const MANAGE: SitePermission[] = ["read", "settings", "applets", "themes", "legal"];
const READ: SitePermission[] = ["read"];

interface Site {
  id: string;
  orgId: string;
}

function headers(
  orgs: { org_id: string; role: string; permissions?: string[] }[],
  sitesOf: { site_id: string; role: string }[],
): EdgeHeaders {
  return {
    "x-user-id": newId(),
    "x-session-kind": "staff",
    "x-org-memberships": JSON.stringify(orgs.map((o) => ({ permissions: [], ...o }))),
    "x-site-memberships": JSON.stringify(sitesOf),
  };
}

async function shareWith(siteId: string, orgId: string, role: string) {
  await sitesEnv.DB.prepare("INSERT INTO site_shares (site_id, org_id, role, created_at) VALUES (?, ?, ?, ?)")
    .bind(siteId, orgId, role, new Date().toISOString())
    .run();
}

/** Each role of the matrix: how a caller holding it is made for a site, and what it may do. */
const ROLES: { name: string; may: SitePermission[]; caller: (site: Site) => Promise<EdgeHeaders> }[] = [
  { name: "org_owner", may: ALL, caller: async (s) => headers([{ org_id: s.orgId, role: "org_owner" }], []) },
  { name: "org_admin", may: ALL, caller: async (s) => headers([{ org_id: s.orgId, role: "org_admin" }], []) },
  {
    name: "org_member",
    may: READ,
    caller: async (s) => headers([{ org_id: s.orgId, role: "org_member" }], []),
  },
  {
    name: "custom org role",
    may: READ,
    caller: async (s) =>
      headers([{ org_id: s.orgId, role: "reviewers", permissions: ["members:manage"] }], []),
  },
  {
    name: "custom org role with sites:manage",
    may: MANAGE,
    caller: async (s) =>
      headers([{ org_id: s.orgId, role: "webmasters", permissions: ["sites:manage"] }], []),
  },
  { name: "site_owner", may: ALL, caller: async (s) => headers([], [{ site_id: s.id, role: "site_owner" }]) },
  {
    name: "site_editor",
    may: MANAGE,
    caller: async (s) => headers([], [{ site_id: s.id, role: "site_editor" }]),
  },
  {
    name: "site_author",
    may: READ,
    caller: async (s) => headers([], [{ site_id: s.id, role: "site_author" }]),
  },
  {
    name: "site_contributor",
    may: READ,
    caller: async (s) => headers([], [{ site_id: s.id, role: "site_contributor" }]),
  },
  {
    name: "custom site role",
    may: READ,
    caller: async (s) => headers([], [{ site_id: s.id, role: "proofreader" }]),
  },
  {
    name: "org_member of the owning org plus site_editor of the site",
    may: MANAGE,
    caller: async (s) =>
      headers([{ org_id: s.orgId, role: "org_member" }], [{ site_id: s.id, role: "site_editor" }]),
  },
  {
    name: "org_admin of an organization the site is shared with as site_editor",
    may: MANAGE,
    caller: async (s) => {
      const partner = newId();
      await shareWith(s.id, partner, "site_editor");
      return headers([{ org_id: partner, role: "org_admin" }], []);
    },
  },
  {
    name: "org_owner of an organization the site is shared with as site_owner",
    may: ALL,
    caller: async (s) => {
      const partner = newId();
      await shareWith(s.id, partner, "site_owner");
      return headers([{ org_id: partner, role: "org_owner" }], []);
    },
  },
  {
    name: "org_member of an organization the site is shared with as site_owner",
    may: READ,
    caller: async (s) => {
      const partner = newId();
      await shareWith(s.id, partner, "site_owner");
      return headers([{ org_id: partner, role: "org_member" }], []);
    },
  },
];

const operations = builtSpecOperations(testSpecs(), "sites")
  .filter((op) => hasPathParameter(op) && op.specPath.startsWith("/v1/sites/{id}"))
  .map((op) => {
    const name = `${op.method} ${op.specPath}`;
    const spec = BY_ID_OPERATIONS[name];
    if (!spec) throw new Error(`${name}: no entry in test/support/site-operations.ts`);
    return {
      name,
      ...spec,
      call: async (site: Site, h: EdgeHeaders) => {
        const prepared = spec.prepare ? await spec.prepare(site) : {};
        return api(op.method, byIdPath(op.path, site.id, spec, prepared.params), {
          headers: h,
          body: prepared.body ?? spec.body,
        });
      },
    };
  });

describe("permission matrix of the by-id routes", () => {
  it("every role of the table is tested against every permission", () => {
    expect(ROLES.length).toBeGreaterThanOrEqual(14);
    expect(new Set(operations.map((o) => o.permission)).size).toBeGreaterThanOrEqual(3);
  });

  for (const op of operations) {
    describe(op.name, () => {
      for (const role of ROLES) {
        const allowed = role.may.includes(op.permission);
        it(`${role.name}: ${allowed ? "passes the matrix" : "403 FORBIDDEN, nothing changed"}`, async () => {
          const { site, orgId } = await makeSite();
          const caller = await role.caller({ id: site.id, orgId });
          const before = await storedRow(site.id);
          const res = await op.call({ id: site.id, orgId }, caller);
          if (allowed) {
            expect(res.status, res.text).not.toBe(403);
            expect(res.status, res.text).not.toBe(404);
          } else {
            expect(res.status, res.text).toBe(403);
            expect(res.body.code).toBe("FORBIDDEN");
            expect(await storedRow(site.id)).toEqual(before);
          }
        });
      }
    });
  }
});

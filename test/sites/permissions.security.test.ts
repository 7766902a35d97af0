/**
 * The permission matrix of the by-id routes (docs/decisions/sites.md "Who may do what with a site"): every
 * built by-id operation of the spec, called by every role of the shared table of site administration
 * (test/support/site-permission-table.ts, which content's key, form and webhook administration is checked
 * against too); a member lacking the operation's permission gets 403 FORBIDDEN and nothing changes, a
 * member holding it gets past the matrix, a person with no role on the site gets the opaque 404. The
 * `code` column: a PATCH that changes a setting reaching the page as markup or script.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { CONTENT_PERMISSIONS, SITE_PERMISSIONS } from "../../src/lib/site-permissions";
import { testSpecs } from "../support/corpora-binding";
import { BY_ID_OPERATIONS, type ByIdOperation, byIdPath } from "../support/site-operations";
import { PERMISSION_TABLE, type PermissionRow } from "../support/site-permission-table";
import { api, type EdgeHeaders, makeSite, sitesEnv, storedRow } from "../support/sites-helpers";
import { builtSpecOperations, hasPathParameter } from "../support/spec-operations";

interface Site {
  id: string;
  orgId: string;
}

async function shareWith(siteId: string, orgId: string, role: string) {
  await sitesEnv.DB.prepare("INSERT INTO site_shares (site_id, org_id, role, created_at) VALUES (?, ?, ?, ?)")
    .bind(siteId, orgId, role, new Date().toISOString())
    .run();
}

/** The edge headers of a person holding the row's role on the site (its share made first). */
async function callerOf(row: PermissionRow, site: Site): Promise<EdgeHeaders> {
  const partner = newId();
  if (row.share) await shareWith(site.id, partner, row.share);
  return {
    "x-user-id": newId(),
    "x-session-kind": "staff",
    "x-org-memberships": JSON.stringify(row.orgs(site, partner)),
    "x-site-memberships": JSON.stringify(row.sites(site)),
  };
}

/** Beyond the spec's operation list: the PATCH that writes markup, which needs `code` (issue 19). */
const CODE_OPERATIONS: Record<string, ByIdOperation & { method: string; path: string }> = {
  "PATCH /v1/sites/{id} writing settings.code_injection": {
    method: "PATCH",
    path: "/api/v1/sites/{id}",
    permission: "code",
    body: { settings: { code_injection: "<script>alert(1)</script>" } },
  },
};

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
  })
  .concat(
    Object.entries(CODE_OPERATIONS).map(([name, spec]) => ({
      name,
      ...spec,
      call: (site: Site, h: EdgeHeaders) =>
        api(spec.method, byIdPath(spec.path, site.id, spec), { headers: h, body: spec.body }),
    })),
  );

describe("permission matrix of the by-id routes", () => {
  it("every role of the table is tested against every permission sites enforces", () => {
    expect(PERMISSION_TABLE.length).toBeGreaterThanOrEqual(17);
    // `integrations` (API keys, webhooks, forms) is content's column: test/content/site-admin-permissions;
    // so are the content permissions (posts, media, taxonomy, authors, leads): test/content/dashboard-permissions.
    const enforced = SITE_PERMISSIONS.filter((p) => p !== "integrations" && !CONTENT_PERMISSIONS.includes(p));
    expect(new Set(operations.map((o) => o.permission))).toEqual(new Set(enforced));
  });

  for (const op of operations) {
    describe(op.name, () => {
      for (const role of PERMISSION_TABLE) {
        const allowed = role.may.includes(op.permission);
        const outcome = allowed ? "passes the matrix" : role.may.length === 0 ? "404" : "403 FORBIDDEN";
        it(`${role.name}: ${outcome}${allowed ? "" : ", nothing changed"}`, async () => {
          const { site, orgId } = await makeSite();
          const caller = await callerOf(role, { id: site.id, orgId });
          const before = await storedRow(site.id);
          const res = await op.call({ id: site.id, orgId }, caller);
          if (allowed) {
            expect(res.status, res.text).not.toBe(403);
            expect(res.status, res.text).not.toBe(404);
          } else if (role.may.length === 0) {
            expect(res.status, res.text).toBe(404);
            expect(await storedRow(site.id)).toEqual(before);
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

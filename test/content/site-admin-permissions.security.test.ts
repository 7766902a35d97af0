/**
 * Issue 19 item 4: content's API key, form and webhook administration reads the one permission model of
 * site administration (src/lib/site-permissions.ts, its `integrations` column), checked here against the
 * same table as sites' by-id routes (test/support/site-permission-table.ts). A role holding
 * `integrations` lists keys, webhooks and forms (200); any other person gets the missing site's 404
 * (`members:manage` administers members, not the site's credentials). Content keeps no shares, and the
 * model never grants `integrations` through one, so the shared rows answer the same here.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { call } from "../support/content-helpers";
import { formsSite } from "../support/leads-helpers";
import { PERMISSION_TABLE } from "../support/site-permission-table";

const AREAS = ["api-keys", "webhooks", "forms"] as const;

describe("content's site administration follows the shared permission table", () => {
  it("every role holding integrations also holds code (a key admin never mints more than they hold)", () => {
    for (const row of PERMISSION_TABLE) {
      if (row.may.includes("integrations")) expect(row.may, row.name).toContain("code");
    }
  });

  for (const row of PERMISSION_TABLE) {
    const allowed = row.may.includes("integrations");
    it(`${row.name}: ${allowed ? "200" : "the missing site's 404"} on keys, webhooks and forms`, async () => {
      const site = await formsSite();
      const s = { id: site.id, orgId: site.org_id };
      // Exactly the table's memberships (no owner mark added by a helper).
      const headers = {
        "x-user-id": newId(),
        "x-session-kind": "staff",
        "x-org-memberships": JSON.stringify(row.orgs(s, newId())),
        "x-site-memberships": JSON.stringify(row.sites(s)),
      };
      for (const area of AREAS) {
        const res = await call("GET", `/api/v1/sites/${site.id}/${area}`, { headers });
        expect(res.status, `${area}: ${await res.clone().text()}`).toBe(allowed ? 200 : 404);
        if (!allowed) {
          const missing = await call("GET", `/api/v1/sites/${newId()}/${area}`, { headers });
          expect(await res.text()).toBe(await missing.text());
        }
      }
    });
  }
});

/**
 * Tenant walls of the by-id routes: another organization's site, a deleted site and a nonexistent id
 * must be indistinguishable (same status, same body) on every route, and batch must omit them.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { testSpecs } from "../support/corpora-binding";
import { BY_ID_OPERATIONS, byIdPath } from "../support/site-operations";
import {
  api,
  legacyUuidSite,
  makeSite,
  orgMember,
  reader,
  type SiteBody,
  service,
  siteMember,
  sitesEnv,
  staff,
  storedRow,
} from "../support/sites-helpers";
import { builtSpecOperations, hasPathParameter } from "../support/spec-operations";

const byId = (id: string) => `/api/v1/sites/${id}`;

const byIdOperations = builtSpecOperations(testSpecs(), "sites").filter(
  (op) => hasPathParameter(op) && op.specPath.startsWith("/v1/sites/{id}"),
);
const byIdRoutes = byIdOperations.map((op) => ({
  name: `${op.method} ${op.specPath}`,
  method: op.method,
  path: (id: string) => byIdPath(op.path, id, BY_ID_OPERATIONS[`${op.method} ${op.specPath}`]),
  request: { body: BY_ID_OPERATIONS[`${op.method} ${op.specPath}`]?.body },
}));

async function answersLikeMissing(
  method: string,
  path: (id: string) => string,
  headers: Record<string, string>,
  targetId: string,
  request: { body?: unknown; rawBody?: string } = {},
) {
  const missing = await api(method, path(newId()), { headers, ...request });
  const target = await api(method, path(targetId), { headers, ...request });
  expect(missing.status).toBe(404);
  expect(target.status).toBe(404);
  expect(target.text).toBe(missing.text);
  expect(target.contentType).toBe(missing.contentType);
}

describe("by-id guard", () => {
  it("covers every built operation of the spec under a site id, each with its request here", () => {
    const names = byIdRoutes.map((r) => r.name);
    expect(
      names.filter((n) => !(n in BY_ID_OPERATIONS)),
      "by-id operations without a request",
    ).toEqual([]);
    expect(
      Object.keys(BY_ID_OPERATIONS).filter((n) => !names.includes(n)),
      "requests of no operation",
    ).toEqual([]);
    expect(names.length).toBeGreaterThanOrEqual(3);
  });

  it("a member of the owning organization reads the site", async () => {
    const { site, orgId } = await makeSite();
    const res = await api<SiteBody>("GET", `/api/v1/sites/${site.id}`, {
      headers: orgMember(orgId, "org_member"),
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(site.id);
  });

  it("a member of the site (no organization membership) reads the site", async () => {
    const { site } = await makeSite();
    const res = await api<SiteBody>("GET", `/api/v1/sites/${site.id}`, { headers: siteMember(site.id) });
    expect(res.status).toBe(200);
  });

  it("a service-to-service caller (no edge headers) reads the site", async () => {
    const { site } = await makeSite();
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: service })).status).toBe(200);
  });

  it("the id matches case-insensitively (ULID normalized)", async () => {
    const { site, owner } = await makeSite();
    expect((await api("GET", `/api/v1/sites/${site.id.toLowerCase()}`, { headers: owner })).status).toBe(200);
  });

  it("a member of the site's id in lower case in the header still matches", async () => {
    const { site } = await makeSite();
    const res = await api("GET", `/api/v1/sites/${site.id}`, { headers: siteMember(site.id.toLowerCase()) });
    expect(res.status).toBe(200);
  });

  describe("another organization's site answers exactly like a missing one", () => {
    it("GET", async () => {
      const { site } = await makeSite();
      await answersLikeMissing("GET", byId, orgMember(newId()), site.id);
    });

    it("PATCH (and nothing is written)", async () => {
      const { site } = await makeSite();
      const before = await storedRow(site.id);
      await answersLikeMissing("PATCH", byId, orgMember(newId()), site.id, { body: { name: "pwned" } });
      expect(await storedRow(site.id)).toEqual(before);
    });

    it("PATCH with an invalid body still answers 404, not 400", async () => {
      const { site } = await makeSite();
      await answersLikeMissing("PATCH", byId, orgMember(newId()), site.id, { body: { bogus: 1 } });
    });

    it("DELETE (and the site stays)", async () => {
      const { site, owner } = await makeSite();
      await answersLikeMissing("DELETE", byId, orgMember(newId()), site.id);
      expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(200);
    });

    it("PATCH with a malformed, oversized or settings-carrying body: still the missing site's 404", async () => {
      const { site } = await makeSite();
      const before = await storedRow(site.id);
      const stranger = orgMember(newId());
      const bodies: { rawBody?: string; body?: unknown }[] = [
        { rawBody: "{" },
        { rawBody: `{"name":"${"a".repeat(1024 * 1024 + 10)}"}` },
        { body: { settings: { logo_url: "javascript:alert(1)" } } },
        { body: { settings: { logo_url: "https://private.test/x.png" } } },
      ];
      for (const request of bodies) await answersLikeMissing("PATCH", byId, stranger, site.id, request);
      expect(await storedRow(site.id)).toEqual(before);
    });

    it("routes under the site id answer like a missing site too", async () => {
      const { site } = await makeSite();
      for (const method of ["GET", "POST", "PUT", "DELETE"]) {
        await answersLikeMissing(
          method,
          (id) => `/api/v1/sites/${id}/no-such-route`,
          orgMember(newId()),
          site.id,
        );
      }
    });

    it("a legacy UUID site of another organization, in any case, answers like a missing UUID", async () => {
      const id = await legacyUuidSite();
      const stranger = orgMember(newId());
      for (const { method, path, request } of byIdRoutes) {
        const missing = await api(method, path(crypto.randomUUID()), { headers: stranger, ...request });
        const target = await api(method, path(id.toUpperCase()), { headers: stranger, ...request });
        expect(target.status).toBe(404);
        expect(target.text).toBe(missing.text);
      }
    });

    it("every by-id operation of the spec", async () => {
      const { site } = await makeSite();
      const before = await storedRow(site.id);
      const stranger = orgMember(newId());
      for (const { method, path, request } of byIdRoutes) {
        await answersLikeMissing(method, path, stranger, site.id, request);
      }
      expect(await storedRow(site.id)).toEqual(before);
    });

    it("a member of another site of the same organization does not reach this one", async () => {
      const { site, orgId } = await makeSite();
      const { site: sibling } = await makeSite({}, orgId);
      await answersLikeMissing("GET", byId, siteMember(sibling.id), site.id);
    });

    it("a caller with empty membership headers", async () => {
      const { site } = await makeSite();
      await answersLikeMissing("GET", byId, staff([]), site.id);
    });

    it("a forged, malformed membership header grants nothing", async () => {
      const { site, orgId } = await makeSite();
      const headers = { ...orgMember(orgId), "x-org-memberships": `[{"org_id":"${orgId}"}]` };
      await answersLikeMissing("GET", byId, headers, site.id);
    });
  });

  describe("reader (consumer) sessions get 404 on by-id routes", () => {
    it("every by-id operation of the spec, even holding memberships", async () => {
      const { site, orgId } = await makeSite();
      const headers = reader(orgId, site.id);
      for (const { method, path, request } of byIdRoutes) {
        await answersLikeMissing(method, path, headers, site.id, request);
      }
      expect((await storedRow(site.id))?.status).toBe("active");
    });
  });

  describe("a segment that is not an id passes the guard; the handler answers 400", () => {
    for (const { name, method, path, request } of byIdRoutes) {
      it(name, async () => {
        const res = await api(method, path("not-an-id"), { headers: orgMember(newId()), ...request });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe("BAD_REQUEST");
      });
    }
  });

  it("a UUID that names no site is 404", async () => {
    const res = await api("GET", `/api/v1/sites/${crypto.randomUUID()}`, { headers: orgMember(newId()) });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("NOT_FOUND");
  });
});

describe("GET /v1/sites/{id}", () => {
  it("returns the full record", async () => {
    const { site, owner } = await makeSite();
    const res = await api<SiteBody>("GET", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(site);
  });
});

describe("DELETE /v1/sites/{id}", () => {
  it("soft deletes: 204, then 404 everywhere, data kept and reversible", async () => {
    const { site, owner } = await makeSite({ settings: { customization: { layout: { radius: 4 } } } });
    const res = await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    await answersLikeMissing("GET", byId, owner, site.id);
    await answersLikeMissing("DELETE", byId, owner, site.id);
    await answersLikeMissing("PATCH", byId, owner, site.id, { body: { name: "x" } });
    const row = await storedRow(site.id);
    expect(row).toMatchObject({
      status: "deleted",
      previous_status: "active",
      name: site.name,
      slug: site.slug,
      settings: JSON.stringify(site.settings),
    });
    expect(row?.status_changed_at).not.toBe(site.status_changed_at);
  });

  it("a deleted site keeps its slug reserved (reversible delete)", async () => {
    const { site, owner } = await makeSite();
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    const res = await api("POST", "/api/v1/sites", {
      headers: service,
      body: { org_id: newId(), name: "x", slug: site.slug },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("SLUG_TAKEN");
  });

  it("concurrent deletes: one 204, the others 404", async () => {
    const { site, owner } = await makeSite();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner })),
    );
    expect(results.filter((r) => r.status === 204)).toHaveLength(1);
    expect(results.filter((r) => r.status === 404)).toHaveLength(4);
  });

  it("an archived site is invisible like a deleted one", async () => {
    const { site, owner } = await makeSite();
    await sitesEnv.DB.prepare("UPDATE sites SET status = 'archived' WHERE id = ?").bind(site.id).run();
    await answersLikeMissing("GET", byId, owner, site.id);
  });
});

import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import {
  api,
  makeSite,
  orgMember,
  reader,
  type SiteBody,
  service,
  siteMember,
  sitesEnv,
  staff,
} from "../support/sites-helpers";

type Batch = { items: SiteBody[] };

const batch = (ids: string[] | string, headers: Record<string, string>) =>
  api<Batch>("GET", `/api/v1/sites/batch?ids=${Array.isArray(ids) ? ids.join(",") : ids}`, { headers });

describe("GET /v1/sites/batch", () => {
  it("returns the granted sites in request order", async () => {
    const { site: a, orgId } = await makeSite();
    const { site: b } = await makeSite({}, orgId);
    const res = await batch([b.id, a.id], orgMember(orgId));
    expect(res.status).toBe(200);
    expect(res.body.items.map((s) => s.id)).toEqual([b.id, a.id]);
    expect(res.body.items[1]).toEqual(a);
  });

  it("intersects with the caller's site memberships: a non-granted id is omitted, never 403", async () => {
    const { site: mine } = await makeSite();
    const { site: theirs } = await makeSite();
    const res = await batch([mine.id, theirs.id, newId()], siteMember(mine.id));
    expect(res.status).toBe(200);
    expect(res.body.items.map((s) => s.id)).toEqual([mine.id]);
  });

  it("organization-level access grants every site of the organization", async () => {
    const { site: a, orgId } = await makeSite();
    const { site: b } = await makeSite({}, orgId);
    const { site: other } = await makeSite();
    const res = await batch([a.id, b.id, other.id], staff([orgId]));
    expect(res.body.items.map((s) => s.id)).toEqual([a.id, b.id]);
  });

  it("site and organization memberships combine", async () => {
    const { site: a, orgId } = await makeSite();
    const { site: b } = await makeSite();
    const res = await batch([a.id, b.id], staff([orgId], [b.id]));
    expect(res.body.items.map((s) => s.id)).toEqual([a.id, b.id]);
  });

  it("deleted and archived sites are not returned", async () => {
    const { site: live, orgId, owner } = await makeSite();
    const { site: deleted } = await makeSite({}, orgId);
    const { site: archived } = await makeSite({}, orgId);
    await api("DELETE", `/api/v1/sites/${deleted.id}`, { headers: owner });
    await sitesEnv.DB.prepare("UPDATE sites SET status = 'archived' WHERE id = ?").bind(archived.id).run();
    const res = await batch([live.id, deleted.id, archived.id], owner);
    expect(res.body.items.map((s) => s.id)).toEqual([live.id]);
  });

  it("a reader session gets an empty list, even with memberships", async () => {
    const { site, orgId } = await makeSite();
    const res = await batch([site.id], reader(orgId, site.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [] });
  });

  it("a caller with no memberships gets an empty list", async () => {
    const { site } = await makeSite();
    const res = await batch([site.id], staff([]));
    expect(res.body).toEqual({ items: [] });
  });

  it("a service-to-service caller gets every visible site", async () => {
    const { site: a } = await makeSite();
    const { site: b } = await makeSite();
    const res = await batch([a.id, b.id], service);
    expect(res.body.items.map((s) => s.id)).toEqual([a.id, b.id]);
  });

  it("duplicates are answered once; ids are case-insensitive", async () => {
    const { site, owner } = await makeSite();
    const res = await batch([site.id, site.id.toLowerCase()], owner);
    expect(res.body.items.map((s) => s.id)).toEqual([site.id]);
  });

  describe("limits: at most 200 ids", () => {
    it("200 ids (at the limit) pass; granted ones are returned", async () => {
      const { site, owner } = await makeSite();
      const ids = [site.id, ...Array.from({ length: 199 }, () => newId())];
      const res = await batch(ids, owner);
      expect(res.status).toBe(200);
      expect(res.body.items.map((s) => s.id)).toEqual([site.id]);
    });

    it("201 ids is 400", async () => {
      const res = await batch(
        Array.from({ length: 201 }, () => newId()),
        orgMember(newId()),
      );
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "BAD_REQUEST" });
    });
  });

  describe("400 on bad ids", () => {
    const cases: [string, string][] = [
      ["missing", "/api/v1/sites/batch"],
      ["empty", "/api/v1/sites/batch?ids="],
      ["only commas", "/api/v1/sites/batch?ids=,,"],
      ["an invalid id", `/api/v1/sites/batch?ids=${newId()},nope`],
      ["an empty element", `/api/v1/sites/batch?ids=${newId()},,${newId()}`],
      ["a UUID (batch takes ULIDs)", `/api/v1/sites/batch?ids=${crypto.randomUUID()}`],
    ];
    for (const [label, path] of cases) {
      it(label, async () => {
        const res = await api("GET", path, { headers: orgMember(newId()) });
        expect(res.status).toBe(400);
        expect(res.contentType).toContain("application/problem+json");
        expect(res.body.code).toBe("BAD_REQUEST");
      });
    }
  });
});

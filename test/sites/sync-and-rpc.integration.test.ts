import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import type { SitesRpc } from "../../src/lib/rpc";
import { toProjection } from "../../src/sites/site/record";
import { getSite } from "../../src/sites/site/store";
import { pushSiteToContent } from "../../src/sites/site/sync";
import { allContentDbs, contentDbOf, contentDirectory } from "../support/content-groups";
import {
  api,
  deliverQueue,
  makeSite,
  orgMember,
  servicesFor,
  sites,
  sitesEnv,
} from "../support/sites-helpers";

type TransferInput = Parameters<SitesRpc["applyTransfer"]>[0];

/**
 * Content's projection of the site, in the group its directory row names; a site the directory does not
 * know has none, and no group may hold one (docs/decisions/site-groups.md).
 */
async function contentProjection(siteId: string) {
  const read = (db: D1Database) =>
    db.prepare("SELECT * FROM sites WHERE id = ?").bind(siteId).first<Record<string, unknown>>();
  const placed = await contentDirectory
    .prepare("SELECT 1 AS placed FROM site_groups WHERE site_id = ?")
    .bind(siteId)
    .first();
  if (placed) return read(await contentDbOf(siteId));
  for (const db of allContentDbs()) {
    const stray = await read(db);
    if (stray) return stray;
  }
  return null;
}

describe("push to content after every write", () => {
  it("create, update and delete reach content's projection", async () => {
    const { site, owner } = await makeSite();
    expect(await contentProjection(site.id)).toMatchObject({
      org_id: site.org_id,
      slug: site.slug,
      status: "active",
    });
    await api("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { name: "Renamed", default_language: "es" },
    });
    expect(await contentProjection(site.id)).toMatchObject({ name: "Renamed", default_language: "es" });
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(await contentProjection(site.id)).toMatchObject({ status: "deleted" });
  });

  it("the forms app switch (settings.applets.forms.enabled) reaches content's forms_app_state", async () => {
    const formsState = async (siteId: string) =>
      (await contentDbOf(siteId))
        .prepare("SELECT enabled FROM forms_app_state WHERE site_id = ?")
        .bind(siteId)
        .first<{ enabled: number }>();
    const { site, owner } = await makeSite({ settings: { applets: { forms: { enabled: true } } } });
    expect(await formsState(site.id)).toEqual({ enabled: 1 });
    await api("PATCH", `/api/v1/sites/${site.id}`, {
      headers: owner,
      body: { settings: { applets: { forms: { enabled: false, installed_at: null } } } },
    });
    expect(await formsState(site.id)).toEqual({ enabled: 0 });
    const plain = await makeSite();
    expect(await formsState(plain.site.id)).toEqual({ enabled: 0 });
  });

  it("when content cannot take the push, the write stands and a site-sync retry is queued", async () => {
    const { site } = await makeSite();
    const row = (await getSite(sitesEnv.DB, site.id))!;
    // A content binding without the RPC method (e.g. an older content deployment): the call throws.
    const unreachable = { ...sitesEnv, CONTENT: {} as Fetcher };
    expect(await pushSiteToContent(unreachable, servicesFor(unreachable), row)).toBe("queued");
    expect(await getSite(sitesEnv.DB, site.id)).toEqual(row);
  });

  it("site-sync consumer pushes the CURRENT row and acks", async () => {
    const { site } = await makeSite();
    await sitesEnv.DB.prepare("UPDATE sites SET name = 'Changed directly' WHERE id = ?").bind(site.id).run();
    const result = await deliverQueue("site-sync", [{ site_id: site.id }]);
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(result.retryMessages).toEqual([]);
    expect(await contentProjection(site.id)).toMatchObject({ name: "Changed directly" });
  });

  it("a purge that content missed still reaches it: the queued message carries the final projection", async () => {
    const { site } = await makeSite();
    const row = (await getSite(sitesEnv.DB, site.id))!;
    const sent: unknown[] = [];
    const unreachable = {
      ...sitesEnv,
      CONTENT: {} as Fetcher,
      SITE_SYNC: { send: async (body: unknown) => void sent.push(body) } as unknown as Queue,
    };
    const gone = { ...row, status: "deleted", updated_at: new Date(Date.now() + 1000).toISOString() };
    expect(await pushSiteToContent(unreachable, servicesFor(unreachable), gone, { purged: true })).toBe(
      "queued",
    );
    await sitesEnv.DB.prepare("DELETE FROM sites WHERE id = ?").bind(site.id).run();
    expect(await contentProjection(site.id)).toMatchObject({ status: "active" });
    const result = await deliverQueue("site-sync", sent);
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(await contentProjection(site.id)).toMatchObject({ status: "deleted" });
  });

  it("a purge's projection never overrides a live row, nor names another site", async () => {
    const { site } = await makeSite();
    const row = (await getSite(sitesEnv.DB, site.id))!;
    const purged = {
      ...toProjection(row, new Set()),
      status: "deleted",
      updated_at: new Date(Date.now() + 1000).toISOString(),
    };
    await deliverQueue("site-sync", [{ site_id: site.id, purged }]);
    expect(await contentProjection(site.id)).toMatchObject({ status: "active" });
    const other = newId();
    await deliverQueue("site-sync", [{ site_id: other, purged }]);
    expect(await contentProjection(other)).toBeNull();
    expect(await contentProjection(site.id)).toMatchObject({ status: "active" });
  });

  it("site-sync consumer acks a purged site and a malformed message", async () => {
    const result = await deliverQueue("site-sync", [{ site_id: newId() }, { nope: true }]);
    expect(result.explicitAcks.sort()).toEqual(["m0", "m1"]);
  });
});

describe("RPC siteOrg", () => {
  it("owner organization and status of a live site", async () => {
    const { site, orgId } = await makeSite();
    expect(await sites.siteOrg(site.id)).toEqual({ org_id: orgId, status: "active" });
    expect(await sites.siteOrg(site.id.toLowerCase())).toEqual({ org_id: orgId, status: "active" });
  });

  it("null for a missing, deleted or malformed id", async () => {
    const { site, owner } = await makeSite();
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(await sites.siteOrg(site.id)).toBeNull();
    expect(await sites.siteOrg(newId())).toBeNull();
    expect(await sites.siteOrg("not-an-id")).toBeNull();
  });
});

/** An accepted transfer as identity sends it; a share overrides `mode` and `share_role`. */
const transfer = (siteId: string, fromOrgId: string, toOrgId: string): TransferInput => ({
  site_id: siteId,
  from_org_id: fromOrgId,
  to_org_id: toOrgId,
  mode: "transfer",
  share_role: null,
});

describe("RPC applyTransfer", () => {
  it("transfer: the owner changes; the old organization loses access, the new one gains it", async () => {
    const { site, orgId, owner } = await makeSite();
    const to = newId();
    const result = await sites.applyTransfer(transfer(site.id, orgId, to));
    expect(result).toEqual({ ok: true });
    expect(await sites.siteOrg(site.id)).toEqual({ org_id: to, status: "active" });
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(404);
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: orgMember(to) })).status).toBe(200);
    expect(await contentProjection(site.id)).toMatchObject({ org_id: to });
  });

  it("transfer is idempotent (a redelivered acceptance is ok)", async () => {
    const { site, orgId } = await makeSite();
    const to = newId();
    const input = transfer(site.id, orgId, to);
    expect(await sites.applyTransfer(input)).toEqual({ ok: true });
    expect(await sites.applyTransfer(input)).toEqual({ ok: true });
  });

  it("refused when the site does not belong to from_org_id, is missing or is deleted", async () => {
    const { site, owner } = await makeSite();
    const input = transfer(site.id, newId(), newId());
    expect(await sites.applyTransfer(input)).toEqual({ ok: false });
    expect(await sites.applyTransfer({ ...input, site_id: newId() })).toEqual({ ok: false });
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(await sites.applyTransfer({ ...input, from_org_id: site.org_id })).toEqual({ ok: false });
  });

  it("transfer: every share the origin granted ends with it (the buyer granted none of them)", async () => {
    const { site, orgId, owner } = await makeSite();
    const agency = newId();
    const shared = await sites.applyTransfer({
      ...transfer(site.id, orgId, agency),
      mode: "share",
      share_role: "site_editor",
    });
    expect(shared).toEqual({ ok: true });
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: orgMember(agency) })).status).toBe(200);

    const buyer = newId();
    // A refused transfer (the site is not the named origin's) ends nothing.
    expect(await sites.applyTransfer(transfer(site.id, newId(), buyer))).toEqual({ ok: false });
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: orgMember(agency) })).status).toBe(200);
    expect(await sites.applyTransfer(transfer(site.id, orgId, buyer))).toEqual({ ok: true });
    // The agency's share was the origin's grant: the buyer's site is the missing site's 404 to it, as to
    // the origin, on every read and write path.
    const missing = await api("GET", `/api/v1/sites/${newId()}`, { headers: orgMember(agency) });
    const read = await api("GET", `/api/v1/sites/${site.id}`, { headers: orgMember(agency) });
    expect(read.status).toBe(404);
    expect(read.body).toMatchObject({ code: missing.body.code, detail: missing.body.detail });
    const edit = await api("PATCH", `/api/v1/sites/${site.id}`, {
      headers: orgMember(agency, "org_admin"),
      body: { name: "Agency's edit" },
    });
    expect(edit.status).toBe(404);
    const batch = await api<{ items: unknown[] }>("GET", `/api/v1/sites/batch?ids=${site.id}`, {
      headers: orgMember(agency),
    });
    expect(batch.body.items).toEqual([]);
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(404);
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: orgMember(buyer) })).status).toBe(200);
  });

  it("transfer: a share of another site of the origin stays", async () => {
    const origin = await makeSite();
    const other = await makeSite({}, origin.orgId);
    const agency = newId();
    for (const s of [origin.site, other.site]) {
      const shared = await sites.applyTransfer({
        ...transfer(s.id, origin.orgId, agency),
        mode: "share",
        share_role: "site_editor",
      });
      expect(shared).toEqual({ ok: true });
    }
    expect(await sites.applyTransfer(transfer(origin.site.id, origin.orgId, newId()))).toEqual({ ok: true });
    expect((await api("GET", `/api/v1/sites/${other.site.id}`, { headers: orgMember(agency) })).status).toBe(
      200,
    );
    expect((await api("GET", `/api/v1/sites/${origin.site.id}`, { headers: orgMember(agency) })).status).toBe(
      404,
    );
  });

  it("share: both organizations reach the site; the owner is unchanged", async () => {
    const { site, orgId, owner } = await makeSite();
    const to = newId();
    const result = await sites.applyTransfer({
      ...transfer(site.id, orgId, to),
      mode: "share",
      share_role: "site_editor",
    });
    expect(result).toEqual({ ok: true });
    expect(await sites.siteOrg(site.id)).toEqual({ org_id: orgId, status: "active" });
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(200);
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: orgMember(to) })).status).toBe(200);
    const batch = await api<{ items: { id: string }[] }>("GET", `/api/v1/sites/batch?ids=${site.id}`, {
      headers: orgMember(to),
    });
    expect(batch.body.items.map((s) => s.id)).toEqual([site.id]);
  });
});

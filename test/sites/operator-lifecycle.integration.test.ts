import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { MAX_REASON_CHARS } from "../../src/sites/operator/console";
import { contentDbOf } from "../support/content-groups";
import {
  api,
  legacyUuidSite,
  makeSite,
  proveHosts,
  purgeCount,
  type SiteBody,
  setSiteLimit,
  sitesEnv,
  storedRow,
  uniqueDomain,
} from "../support/sites-helpers";

const actor = newId();
const admin = { "x-platform-operator": "operator_admin", "x-user-id": actor };

interface Detail {
  id: string;
  status: string;
  previous_status: string | null;
  status_reason: string | null;
  status_changed_at: string | null;
  updated_at: string;
}

function transition(id: string, action: string, body?: unknown, headers: Record<string, string> = admin) {
  return api<Detail>("POST", `/api/v1/platform/sites/${id}/${action}`, {
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

async function expectTransition(id: string, action: string, status: string, body?: unknown) {
  const res = await transition(id, action, body);
  expect(res.status, res.text).toBe(200);
  expect(res.body.status).toBe(status);
  return res.body;
}

async function auditRows(siteId: string) {
  const { results } = await sitesEnv.DB.prepare("SELECT * FROM site_audit WHERE site_id = ? ORDER BY rowid")
    .bind(siteId)
    .all<{
      action: string;
      from_status: string;
      to_status: string | null;
      actor_user_id: string | null;
      actor_capability: string;
      reason: string | null;
      site_slug: string;
      org_id: string;
      hosts_json: string;
    }>();
  return results;
}

async function projectedStatus(siteId: string): Promise<string | null> {
  const row = await (await contentDbOf(siteId))
    .prepare("SELECT status FROM sites WHERE id = ?")
    .bind(siteId)
    .first<{ status: string }>();
  return row?.status ?? null;
}

function byHost(host: string) {
  return api("GET", `/api/v1/sites/by-host?host=${encodeURIComponent(host)}`);
}

describe("POST /v1/platform/sites/{id}/deactivate", () => {
  it("unpublishes: by-host stops serving its hosts (cache dropped), customers still see and edit it", async () => {
    const domain = uniqueDomain();
    const { site, owner } = await makeSite({ primary_domain: domain });
    await proveHosts(owner, domain);
    const platformHost = `${site.slug}.${sitesEnv.PLATFORM_DOMAIN}`;
    expect((await byHost(domain)).status).toBe(200);
    expect((await byHost(platformHost)).status).toBe(200);
    const purges = await purgeCount(site.id);

    const body = await expectTransition(site.id, "deactivate", "inactive", { reason: "  unpaid invoice " });
    expect(body).toMatchObject({ previous_status: "active", status_reason: "unpaid invoice" });
    expect(body.status_changed_at).toBe(body.updated_at);
    expect(body.status_changed_at! > site.status_changed_at!).toBe(true);

    expect((await byHost(domain)).status).toBe(404);
    expect((await byHost(platformHost)).status).toBe(404);
    expect(await purgeCount(site.id)).toBe(purges + 1);
    expect(await projectedStatus(site.id)).toBe("inactive");
    const read = await api<SiteBody>("GET", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(read.status).toBe(200);
    expect(read.body.status).toBe("inactive");
    expect(
      (await api("PATCH", `/api/v1/sites/${site.id}`, { headers: owner, body: { name: "Still mine" } }))
        .status,
    ).toBe(200);
    expect((await byHost(domain)).status).toBe(404);

    expect(await auditRows(site.id)).toEqual([
      expect.objectContaining({
        action: "deactivate",
        from_status: "active",
        to_status: "inactive",
        actor_user_id: actor,
        actor_capability: "operator_admin",
        reason: "unpaid invoice",
        site_slug: site.slug,
        org_id: site.org_id,
      }),
    ]);
  });

  it("on a site already inactive: 200 unchanged, nothing written, no purge, no audit row", async () => {
    const { site } = await makeSite();
    const first = await expectTransition(site.id, "deactivate", "inactive");
    const row = await storedRow(site.id);
    const purges = await purgeCount(site.id);
    const again = await expectTransition(site.id, "deactivate", "inactive", { reason: "again" });
    expect(again).toEqual(first);
    expect(await storedRow(site.id)).toEqual(row);
    expect(await purgeCount(site.id)).toBe(purges);
    expect(await auditRows(site.id)).toHaveLength(1);
  });
});

describe("POST /v1/platform/sites/{id}/archive", () => {
  it("archives: invisible to customers (404, omitted from batch), projection archived", async () => {
    const { site, owner } = await makeSite();
    const body = await expectTransition(site.id, "archive", "archived");
    expect(body).toMatchObject({ previous_status: "active", status_reason: null });
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(404);
    const batch = await api<{ items: unknown[] }>("GET", `/api/v1/sites/batch?ids=${site.id}`, {
      headers: owner,
    });
    expect(batch.body.items).toEqual([]);
    expect(await projectedStatus(site.id)).toBe("archived");
    expect((await byHost(`${site.slug}.${sitesEnv.PLATFORM_DOMAIN}`)).status).toBe(404);
  });
});

describe("POST /v1/platform/sites/{id}/restore", () => {
  it("archived from inactive comes back inactive; restoring an inactive site publishes it", async () => {
    const { site } = await makeSite();
    await expectTransition(site.id, "deactivate", "inactive");
    const archived = await expectTransition(site.id, "archive", "archived");
    expect(archived.previous_status).toBe("inactive");
    const restored = await expectTransition(site.id, "restore", "inactive");
    expect(restored.previous_status).toBe("archived");
    const published = await expectTransition(site.id, "restore", "active");
    expect(published.previous_status).toBe("inactive");
    expect((await byHost(`${site.slug}.${sitesEnv.PLATFORM_DOMAIN}`)).status).toBe(200);
    expect((await auditRows(site.id)).map((a) => `${a.action}:${a.from_status}>${a.to_status}`)).toEqual([
      "deactivate:active>inactive",
      "archive:inactive>archived",
      "restore:archived>inactive",
      "restore:inactive>active",
    ]);
  });

  it("a site the customer deleted comes back to the state it was deleted in, and to customers", async () => {
    const { site, owner } = await makeSite();
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    const back = await expectTransition(site.id, "restore", "active");
    expect(back.previous_status).toBe("deleted");
    expect((await api("GET", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(200);
    expect(await projectedStatus(site.id)).toBe("active");

    const { site: other, owner: otherOwner } = await makeSite();
    await expectTransition(other.id, "deactivate", "inactive");
    await api("DELETE", `/api/v1/sites/${other.id}`, { headers: otherOwner });
    await expectTransition(other.id, "restore", "inactive");
  });

  it("a deleted site that was archived before comes back active (archived is not a live state)", async () => {
    const { site } = await makeSite();
    await expectTransition(site.id, "archive", "archived");
    await sitesEnv.DB.prepare(
      "UPDATE sites SET status = 'deleted', previous_status = 'archived' WHERE id = ?",
    )
      .bind(site.id)
      .run();
    await expectTransition(site.id, "restore", "active");
  });

  it("on an active site: 200 unchanged, nothing written", async () => {
    const { site } = await makeSite();
    const row = await storedRow(site.id);
    await expectTransition(site.id, "restore", "active");
    expect(await storedRow(site.id)).toEqual(row);
    expect(await auditRows(site.id)).toEqual([]);
  });

  it("leaving deleted needs room in the plan: 409 SITE_LIMIT_REACHED and the site stays deleted", async () => {
    const orgId = newId();
    const { site, owner } = await makeSite({}, orgId);
    await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
    await setSiteLimit(orgId, 1);
    await makeSite({}, orgId);
    for (const action of ["restore", "archive", "deactivate"]) {
      const res = await transition(site.id, action);
      expect(res.status, action).toBe(409);
      expect(res.body).toMatchObject({ code: "SITE_LIMIT_REACHED" });
    }
    expect((await storedRow(site.id))?.status).toBe("deleted");
    expect(await auditRows(site.id)).toEqual([]);
    await setSiteLimit(orgId, 2);
    await expectTransition(site.id, "restore", "active");
    // Moving between counted states never needs room.
    await setSiteLimit(orgId, 0);
    await expectTransition(site.id, "archive", "archived");
    await expectTransition(site.id, "restore", "active");
  });
});

describe("transitions race", () => {
  it("20 operators deactivating at once: one change, previous_status stays active, one audit row", async () => {
    const { site } = await makeSite();
    const results = await Promise.all(Array.from({ length: 20 }, () => transition(site.id, "deactivate")));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(results.every((r) => r.body.status === "inactive")).toBe(true);
    const row = await storedRow(site.id);
    expect(row).toMatchObject({ status: "inactive", previous_status: "active" });
    expect(await auditRows(site.id)).toHaveLength(1);
  });

  it("archive and deactivate racing: the audit rows chain from state to state and end in the stored state", async () => {
    const { site } = await makeSite();
    const actions = Array.from({ length: 24 }, (_, i) => ["archive", "deactivate", "restore"][i % 3]!);
    const results = await Promise.all(actions.map((a) => transition(site.id, a)));
    expect(results.map((r) => r.status)).toEqual(Array(actions.length).fill(200));
    const row = await storedRow(site.id);
    const audit = await auditRows(site.id);
    expect(audit.length).toBeGreaterThan(0);
    let status = "active";
    for (const entry of audit) {
      expect(entry.from_status).toBe(status);
      expect(entry.to_status).not.toBe(status);
      status = entry.to_status!;
    }
    expect(row?.status).toBe(status);
    expect(row?.previous_status).toBe(audit.at(-1)!.from_status);
  });

  it("two deleted sites restored at once into one free slot: exactly one comes back", async () => {
    const orgId = newId();
    const a = await makeSite({}, orgId);
    const b = await makeSite({}, orgId);
    await api("DELETE", `/api/v1/sites/${a.site.id}`, { headers: a.owner });
    await api("DELETE", `/api/v1/sites/${b.site.id}`, { headers: b.owner });
    await setSiteLimit(orgId, 1);
    const results = await Promise.all([transition(a.site.id, "restore"), transition(b.site.id, "restore")]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const live = await sitesEnv.DB.prepare(
      "SELECT count(*) AS n FROM sites WHERE org_id = ? AND status != 'deleted'",
    )
      .bind(orgId)
      .first<{ n: number }>();
    expect(live?.n).toBe(1);
  });
});

describe("transition requests", () => {
  it("reason: trimmed, empty is null, at most 500 characters; unknown fields and non-strings are 400", async () => {
    const { site } = await makeSite();
    const max = "r".repeat(MAX_REASON_CHARS);
    expect((await expectTransition(site.id, "archive", "archived", { reason: max })).status_reason).toBe(max);
    expect(
      (await expectTransition(site.id, "restore", "active", { reason: "   " })).status_reason,
    ).toBeNull();
    expect((await expectTransition(site.id, "deactivate", "inactive", {})).status_reason).toBeNull();
    const row = await storedRow(site.id);
    const bad: unknown[] = [
      { reason: `${max}r` },
      { reason: 5 },
      { reason: null },
      { reason: "x", status: "active" },
      { status: "active" },
      [],
      "text",
    ];
    for (const body of bad) {
      const res = await transition(site.id, "archive", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: "BAD_REQUEST" });
    }
    const huge = await transition(site.id, "archive", { reason: "r".repeat(20_000) });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    const malformed = await api("POST", `/api/v1/platform/sites/${site.id}/archive`, {
      headers: admin,
      rawBody: "{not json",
    });
    expect(malformed.status).toBe(400);
    expect(await storedRow(site.id)).toEqual(row);
  });

  it("400 for an id that is neither ULID nor UUID; 404 for a missing site", async () => {
    for (const action of ["deactivate", "archive", "restore"]) {
      const bad = await transition("nope", action);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: "BAD_REQUEST" });
      for (const missing of [newId(), crypto.randomUUID()]) {
        const res = await transition(missing, action);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ code: "NOT_FOUND" });
      }
    }
  });

  it("a legacy UUID site goes through the lifecycle too", async () => {
    const id = await legacyUuidSite();
    await expectTransition(id.toUpperCase(), "archive", "archived");
    await expectTransition(id, "restore", "active");
  });

  it("writes need operator_admin: operator_read, a forged value or no header are 403 and nothing changes", async () => {
    const { site, owner } = await makeSite();
    const row = await storedRow(site.id);
    const refused: Record<string, string>[] = [
      { "x-platform-operator": "operator_read", "x-user-id": newId() },
      { "x-platform-operator": "admin" },
      { "x-platform-operator": "Operator_Admin" },
      {},
      owner,
    ];
    for (const headers of refused) {
      for (const action of ["deactivate", "archive", "restore"]) {
        for (const body of [undefined, { reason: "x" }, { bogus: 1 }]) {
          const res = await transition(site.id, action, body, headers);
          expect(res.status, `${JSON.stringify(headers)} ${action}`).toBe(403);
          expect(res.body).toMatchObject({ code: "FORBIDDEN" });
        }
      }
      const badId = await transition("nope", "archive", undefined, headers);
      expect(badId.status).toBe(403);
    }
    expect(await storedRow(site.id)).toEqual(row);
    expect(await auditRows(site.id)).toEqual([]);
  });
});

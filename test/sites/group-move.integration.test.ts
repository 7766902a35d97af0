/**
 * Operator console, beyond the spec (issue 38): `POST/GET /v1/platform/sites/{site_id}/group-move` and
 * `GET /v1/platform/content-groups`. The gate (no capability: 403; operator_read does not start a move), the
 * walls (an unknown site is 404 and reaches no mover), the body's rules, and a move started here that content
 * carries out by itself (its SiteMover's alarm) until the directory names the new group.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { contentGroupDb, contentGroupOf, contentGroups } from "../support/content-groups";
import { api, makeSite, sitesEnv } from "../support/sites-helpers";

const admin = { "x-platform-operator": "operator_admin", "x-user-id": newId() };
const reader = { "x-platform-operator": "operator_read", "x-user-id": newId() };

const movePath = (id: string) => `/api/v1/platform/sites/${id}/group-move`;

/** The operator audit trail's rows of the site (action, actor, capability, reason), oldest first. */
async function auditOf(siteId: string) {
  const { results } = await sitesEnv.DB.prepare(
    "SELECT action, actor_user_id, actor_capability, reason, from_status, to_status FROM site_audit WHERE site_id = ? ORDER BY rowid",
  )
    .bind(siteId)
    .all<{ action: string; actor_user_id: string | null; actor_capability: string; reason: string }>();
  return results;
}

function other(group: string): string {
  return [...contentGroups.keys()].find((g) => g !== group)!;
}

interface Move {
  state: string;
  from: string;
  to: string;
  rows_copied: number;
  longest_write_refusal_ms: number | null;
}

describe("operator: moving a site between content groups", () => {
  it("needs a capability to read and operator_admin to move; refusals before anything is parsed", async () => {
    const { site } = await makeSite();
    const to = other(await contentGroupOf(site.id));
    const refused: Record<string, string>[] = [{}, { "x-user-id": newId() }];
    for (const headers of refused) {
      expect((await api("POST", movePath(site.id), { headers, body: { to } })).status).toBe(403);
      expect((await api("POST", `${movePath(site.id)}/rollback`, { headers })).status).toBe(403);
      expect((await api("GET", movePath(site.id), { headers })).status).toBe(403);
      expect((await api("GET", "/api/v1/platform/content-groups", { headers })).status).toBe(403);
    }
    const read = await api<{ code: string }>("POST", movePath(site.id), { headers: reader, body: { to } });
    expect(read.status).toBe(403);
    expect(read.body.code).toBe("FORBIDDEN");
    expect((await api("POST", `${movePath(site.id)}/rollback`, { headers: reader })).status).toBe(403);
    // A refused caller moved nothing.
    expect((await api("GET", movePath(site.id), { headers: reader })).status).toBe(404);
  });

  it("an unknown or malformed site, an unknown group and a strict body are refused", async () => {
    const unknown = newId();
    expect((await api("POST", movePath(unknown), { headers: admin, body: { to: "g001" } })).status).toBe(404);
    expect((await api("GET", movePath(unknown), { headers: admin })).status).toBe(404);
    expect((await api("POST", `${movePath(unknown)}/rollback`, { headers: admin })).status).toBe(404);
    expect((await api("POST", movePath("not-an-id"), { headers: admin, body: { to: "g001" } })).status).toBe(
      400,
    );
    const { site } = await makeSite();
    for (const body of [{}, { to: "g999" }, { to: "../g000" }, { to: "g001", extra: 1 }, { to: 1 }]) {
      const res = await api<{ code: string }>("POST", movePath(site.id), { headers: admin, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const same = await api<{ code: string }>("POST", movePath(site.id), {
      headers: admin,
      body: { to: await contentGroupOf(site.id) },
    });
    expect(same.status).toBe(409);
    expect(same.body.code).toBe("SITE_MOVE_CONFLICT");
  });

  it("lists every content group with its site count", async () => {
    await makeSite();
    const res = await api<{ data: { group: string; sites: number }[] }>(
      "GET",
      "/api/v1/platform/content-groups",
      {
        headers: reader,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.data.map((g) => g.group)).toEqual([...contentGroups.keys()]);
    expect(res.body.data.reduce((n, g) => n + g.sites, 0)).toBeGreaterThan(0);
  });

  it("starts a move that content carries out by itself; a second one meanwhile is 409; progress is readable", async () => {
    const { site } = await makeSite();
    const from = await contentGroupOf(site.id);
    const to = other(from);
    const started = await api<Move>("POST", movePath(site.id), { headers: admin, body: { to } });
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ from, to, state: "copying" });
    const again = await api<{ code: string }>("POST", movePath(site.id), { headers: admin, body: { to } });
    expect(again.status).toBe(409);
    // The start is in the operator audit trail with who asked; the refused second start is not.
    expect(await auditOf(site.id)).toEqual([
      {
        action: "group_move",
        actor_user_id: admin["x-user-id"],
        actor_capability: "operator_admin",
        reason: `content group ${from} -> ${to}`,
        from_status: "active",
        to_status: "active",
      },
    ]);
    let move: Move | null = null;
    for (let i = 0; i < 100; i++) {
      const res = await api<Move>("GET", movePath(site.id), { headers: reader });
      expect(res.status).toBe(200);
      move = res.body;
      if (move.state === "cleaning" || move.state === "done") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(move?.state).toMatch(/^(cleaning|done)$/);
    expect(move!.rows_copied).toBeGreaterThan(0);
    expect(move!.longest_write_refusal_ms).toBeGreaterThanOrEqual(0);
    expect(await contentGroupOf(site.id)).toBe(to);
    // Switched: the operator can no longer roll it back.
    const late = await api<{ code: string }>("POST", `${movePath(site.id)}/rollback`, { headers: admin });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("SITE_MOVE_CONFLICT");
  });

  it("rolls a running move back on the operator's word: the site stays in its group", async () => {
    const { site } = await makeSite();
    const from = await contentGroupOf(site.id);
    const to = other(from);
    expect((await api("POST", `${movePath(site.id)}/rollback`, { headers: admin })).status).toBe(404);
    // The target refuses the site's first row, so the move waits (retrying with a backoff) before its switch.
    const trigger = `hold_${site.id.toLowerCase()}`;
    await contentGroupDb(to).exec(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON sites WHEN new.id = '${site.id}' BEGIN SELECT RAISE(ABORT, 'held'); END`,
    );
    try {
      const started = await api<Move>("POST", movePath(site.id), { headers: admin, body: { to } });
      expect(started.status).toBe(202);
      const rolled = await api<Move>("POST", `${movePath(site.id)}/rollback`, { headers: admin });
      expect(rolled.status, rolled.text).toBe(202);
      expect(rolled.body.state).toMatch(/^rolling_back|rolled_back$/);
      let move: Move | null = null;
      for (let i = 0; i < 100; i++) {
        move = (await api<Move>("GET", movePath(site.id), { headers: reader })).body;
        if (move.state === "rolled_back") break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(move?.state).toBe("rolled_back");
      expect(await contentGroupOf(site.id)).toBe(from);
      expect((await auditOf(site.id)).map((row) => [row.action, row.actor_user_id])).toEqual([
        ["group_move", admin["x-user-id"]],
        ["group_move_rollback", admin["x-user-id"]],
      ]);
    } finally {
      await contentGroupDb(to).exec(`DROP TRIGGER IF EXISTS ${trigger}`);
    }
  });
});

/**
 * A failure the service does not expect is a 500 whose body never leaks the cause (SQL, stack). The
 * failure is provoked for real with a SQLite trigger that fires only for rows named by this test.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { api, makeSite, orgMember, sitesEnv, storedRow, uniqueSlug } from "../support/sites-helpers";

const SECRET = "internal-secret-detail";

async function withTrigger<T>(name: string, sql: string, run: () => Promise<T>): Promise<T> {
  await sitesEnv.DB.prepare(sql).run();
  try {
    return await run();
  } finally {
    await sitesEnv.DB.prepare(`DROP TRIGGER IF EXISTS ${name}`).run();
  }
}

function expectRedacted(res: { status: number; text: string; body: Record<string, unknown> }) {
  expect(res.status).toBe(500);
  expect(res.body).toMatchObject({ status: 500, code: "INTERNAL_ERROR" });
  expect(res.text).not.toContain(SECRET);
  expect(res.text).not.toMatch(/sqlite|D1_ERROR|stack|at /i);
}

describe("500 with redacted detail", () => {
  it("POST /v1/sites", async () => {
    const orgId = newId();
    const name = `boom-${newId()}`;
    const trigger = `t_${newId()}`;
    const res = await withTrigger(
      trigger,
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON sites WHEN NEW.name = '${name}' BEGIN SELECT RAISE(ABORT, '${SECRET}'); END`,
      () =>
        api("POST", "/api/v1/sites", {
          headers: orgMember(orgId),
          body: { org_id: orgId, name, slug: uniqueSlug() },
        }),
    );
    expectRedacted(res);
  });

  it("PATCH /v1/sites/{id} (and nothing is written)", async () => {
    const { site, owner } = await makeSite();
    const before = await storedRow(site.id);
    const trigger = `t_${newId()}`;
    const res = await withTrigger(
      trigger,
      `CREATE TRIGGER ${trigger} BEFORE UPDATE ON sites WHEN OLD.id = '${site.id}' BEGIN SELECT RAISE(ABORT, '${SECRET}'); END`,
      () => api("PATCH", `/api/v1/sites/${site.id}`, { headers: owner, body: { name: "x" } }),
    );
    expectRedacted(res);
    expect(await storedRow(site.id)).toEqual(before);
  });

  it("DELETE /v1/sites/{id} (the site stays)", async () => {
    const { site, owner } = await makeSite();
    const trigger = `t_${newId()}`;
    const res = await withTrigger(
      trigger,
      `CREATE TRIGGER ${trigger} BEFORE UPDATE ON sites WHEN OLD.id = '${site.id}' BEGIN SELECT RAISE(ABORT, '${SECRET}'); END`,
      () => api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner }),
    );
    expectRedacted(res);
    expect((await storedRow(site.id))?.status).toBe("active");
  });
});

/**
 * 503 THEMES_UNAVAILABLE: a failure of the themes storage (a D1 error on `themes` or `theme_snapshots`)
 * is answered 503, never a 500, and nothing is half-written. Write failures are provoked for real with
 * SQLite triggers that fire only for this test's rows; read failures with a database whose themes
 * queries fail, handed to the operation as the route would.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { ApiError } from "../../src/lib/problem";
import { listPlatformThemes, themeGallery } from "../../src/sites/themes/theme-service";
import { api, makeSite, servicesFor, sitesEnv, storedRow } from "../support/sites-helpers";
import { LOOK, operatorAdmin, storeTheme, themeSlug } from "../support/theme-helpers";

async function withTrigger<T>(sql: (name: string) => string, run: () => Promise<T>): Promise<T> {
  const name = `t_${newId()}`;
  await sitesEnv.DB.prepare(sql(name)).run();
  try {
    return await run();
  } finally {
    await sitesEnv.DB.prepare(`DROP TRIGGER IF EXISTS ${name}`).run();
  }
}

function expectUnavailable(res: { status: number; text: string; body: Record<string, unknown> }) {
  expect(res.status, res.text).toBe(503);
  expect(res.body.code).toBe("THEMES_UNAVAILABLE");
  expect(res.text).not.toMatch(/sqlite|D1_ERROR|boom/i);
}

/** The sites database, except that every statement naming a themes table fails as D1 would. */
function failingThemesDb(): D1Database {
  const db = sitesEnv.DB;
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") {
        return (sql: string) => {
          if (/theme/i.test(sql)) throw new Error("D1_ERROR: no such table: themes (boom)");
          return target.prepare(sql);
        };
      }
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function expectThrowsUnavailable(run: () => Promise<unknown>) {
  const err = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe("THEMES_UNAVAILABLE");
  expect((err as ApiError).status).toBe(503);
}

describe("503 THEMES_UNAVAILABLE", () => {
  it("gallery and platform list: the themes storage cannot be read", async () => {
    const { site } = await makeSite();
    const env = { ...sitesEnv, DB: failingThemesDb() };
    const row = await sitesEnv.DB.prepare("SELECT * FROM sites WHERE id = ?").bind(site.id).first();
    await expectThrowsUnavailable(() => themeGallery(env, servicesFor(env), row as never));
    await expectThrowsUnavailable(() => listPlatformThemes(env, servicesFor(env)));
  });

  it("save: the insert fails", async () => {
    const { site, owner } = await makeSite({ settings: LOOK });
    const slug = themeSlug();
    const res = await withTrigger(
      (t) =>
        `CREATE TRIGGER ${t} BEFORE INSERT ON themes WHEN NEW.slug = '${slug}' BEGIN SELECT RAISE(ABORT, 'boom'); END`,
      () => api("POST", `/api/v1/sites/${site.id}/themes`, { headers: owner, body: { name: "x", slug } }),
    );
    expectUnavailable(res);
  });

  it("apply: the snapshot cannot be kept, so the settings are not written either", async () => {
    const { site, owner } = await makeSite({ settings: { footer: { model: "columns" } } });
    const themeId = await storeTheme({ scope: "platform" });
    const before = await storedRow(site.id);
    const res = await withTrigger(
      (t) =>
        `CREATE TRIGGER ${t} BEFORE INSERT ON theme_snapshots WHEN NEW.site_id = '${site.id}' BEGIN SELECT RAISE(ABORT, 'boom'); END`,
      () =>
        api("POST", `/api/v1/sites/${site.id}/themes/apply`, { headers: owner, body: { theme_id: themeId } }),
    );
    expectUnavailable(res);
    expect(await storedRow(site.id)).toEqual(before);
  });

  it("undo: the snapshot cannot be deleted, so the settings stay as they are", async () => {
    const { site, owner } = await makeSite({ settings: { footer: { model: "columns" } } });
    const themeId = await storeTheme({ scope: "platform" });
    await api("POST", `/api/v1/sites/${site.id}/themes/apply`, {
      headers: owner,
      body: { theme_id: themeId },
    });
    const before = await storedRow(site.id);
    const res = await withTrigger(
      (t) =>
        `CREATE TRIGGER ${t} BEFORE DELETE ON theme_snapshots WHEN OLD.site_id = '${site.id}' BEGIN SELECT RAISE(ABORT, 'boom'); END`,
      () => api("POST", `/api/v1/sites/${site.id}/themes/undo`, { headers: owner }),
    );
    expectUnavailable(res);
    expect(await storedRow(site.id)).toEqual(before);
    const count = await sitesEnv.DB.prepare("SELECT COUNT(*) AS n FROM theme_snapshots WHERE site_id = ?")
      .bind(site.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(1);
  });

  it("delete (site and platform) and platform create", async () => {
    const { site, owner, orgId } = await makeSite();
    const orgTheme = await storeTheme({ scope: "org", org_id: orgId });
    const platform = await storeTheme({ scope: "platform" });
    const slug = themeSlug();
    await withTrigger(
      (t) =>
        `CREATE TRIGGER ${t} BEFORE DELETE ON themes WHEN OLD.id IN ('${orgTheme}', '${platform}') BEGIN SELECT RAISE(ABORT, 'boom'); END`,
      async () => {
        expectUnavailable(
          await api("DELETE", `/api/v1/sites/${site.id}/themes/${orgTheme}`, { headers: owner }),
        );
        expectUnavailable(
          await api("DELETE", `/api/v1/platform/themes/${platform}`, { headers: operatorAdmin }),
        );
      },
    );
    await withTrigger(
      (t) =>
        `CREATE TRIGGER ${t} BEFORE INSERT ON themes WHEN NEW.slug = '${slug}' BEGIN SELECT RAISE(ABORT, 'boom'); END`,
      async () => {
        const body = { name: "x", slug, version: "1.0.0", package: LOOK };
        expectUnavailable(await api("POST", "/api/v1/platform/themes", { headers: operatorAdmin, body }));
      },
    );
  });
});

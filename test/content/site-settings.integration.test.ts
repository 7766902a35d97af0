/**
 * `GET|PATCH /v1/site/settings` and `GET|PATCH /v1/site/seo` through the real content worker with real
 * keys, over the real sites worker that owns the settings document (its service binding): scopes, the
 * allowlist against keys planted straight in sites' database, merge semantics, refusals identical to
 * the sites PATCH, the tenant wall, deleted sites, caches after a write.
 */
import { describe, expect, it } from "vitest";
import { SITE_SEO_KEYS, SITE_SETTINGS_KEYS } from "../../src/content/site/settings";
import { call, content, createKey, ORIGIN, problem } from "../support/content-helpers";
import {
  plantSettings,
  registeredSite,
  type SitesAnswer,
  setStatusInSitesOnly,
  settingsTenant,
  sitesApi,
  storedSettings,
  storedSettingsText,
} from "../support/settings-through-sites";

type Json = Record<string, unknown>;

const getSettings = (key: string) => call("GET", "/v1/site/settings", { key });
const patchSettings = (key: string, body: unknown) => call("PATCH", "/v1/site/settings", { key, body });
const getSeo = (key: string, origin?: string) =>
  call("GET", "/v1/site/seo", { key, ...(origin ? { origin } : {}) });
const patchSeo = (key: string, body: unknown) => call("PATCH", "/v1/site/seo", { key, body });

/** Everything a key must never read: the spec's named exclusions, the SEO document, a key added later. */
const PLANTED_PRIVATE: Json = {
  integrations: { analytics_token: "secret-token" },
  code_injection: { head: "<script>alert(1)</script>" },
  ads: { units: [] },
  applets: { forms: { enabled: true } },
  modals: [],
  colors: { bg: "#fff" },
  typography: { font_primary: "Inter" },
  layout: { radius: 4 },
  header: { model: "auto" },
  footer: { model: "auto" },
  custom_css: "body{}",
  seo: { meta_title: "Site title", google_site_verification: "abc" },
  logo_url: "/logo.png",
  future_key: { added: "later" },
};

const PLANTED_EDITABLE: Json = {
  social: { twitter: "https://twitter.example/site" },
  footer_columns: [{ title: "About", links: [] }],
  legal_links: [{ label: "Privacy", url: "/legal/privacy" }],
  search: { enabled: true },
  customization: { theme_base: "dark", typography: { font_primary: "Inter" } },
  advanced: { lazy_images: true },
  subscriptions_enabled: false,
  language_url_mode: "prefix",
};

describe("scopes and key kinds", () => {
  it("settings: site:read to read, site:write to write; another scope is 403; no key is 401", async () => {
    const t = await settingsTenant(["seo:read", "seo:write", "posts:write"]);
    const read = await getSettings(t.ck);
    expect(read.status).toBe(403);
    expect((await problem(read)).code).toBe("INSUFFICIENT_SCOPE");
    const write = await patchSettings(t.ck, { settings: { social: {} } });
    expect(write.status).toBe(403);
    expect((await problem(write)).code).toBe("INSUFFICIENT_SCOPE");

    const readOnly = await createKey(t.site, { scopes: ["site:read"] });
    expect((await getSettings(readOnly.key)).status).toBe(200);
    expect((await patchSettings(readOnly.key, { settings: { social: {} } })).status).toBe(403);
    const writeOnly = await createKey(t.site, { scopes: ["site:write"] });
    expect((await getSettings(writeOnly.key)).status).toBe(403);
    expect((await patchSettings(writeOnly.key, { settings: { social: {} } })).status).toBe(200);

    expect((await call("GET", "/v1/site/settings")).status).toBe(401);
    expect((await call("PATCH", "/v1/site/settings", { body: { settings: { social: {} } } })).status).toBe(
      401,
    );
  });

  it("seo: seo:read to read, seo:write to write", async () => {
    const t = await settingsTenant(["site:read", "site:write"]);
    expect((await getSeo(t.ck)).status).toBe(403);
    const write = await patchSeo(t.ck, { meta_title: "x" });
    expect(write.status).toBe(403);
    expect((await problem(write)).code).toBe("INSUFFICIENT_SCOPE");
    const writer = await createKey(t.site, { scopes: ["seo:write"] });
    expect((await patchSeo(writer.key, { meta_title: "x" })).status).toBe(200);
    expect((await getSeo(writer.key)).status).toBe(403);
  });

  it("a pk_ key gets 403 on the settings routes and the SEO write, and may read site SEO (seo:read)", async () => {
    const site = await registeredSite({ seo: { meta_title: "Public title" } });
    const pk = await createKey(site, { kind: "public", scopes: ["seo:read", "posts:read"] });
    for (const [method, path, body] of [
      ["GET", "/v1/site/settings", undefined],
      ["PATCH", "/v1/site/settings", { settings: { social: {} } }],
      ["PATCH", "/v1/site/seo", { meta_title: "x" }],
    ] as const) {
      const res = await call(method, path, { key: pk.key, origin: ORIGIN, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect((await problem(res)).code, `${method} ${path}`).toBe("SECRET_KEY_REQUIRED");
    }
    const seo = await getSeo(pk.key, ORIGIN);
    expect(seo.status).toBe(200);
    expect(seo.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(((await seo.json()) as Json).meta_title).toBe("Public title");
    // Outside its origins the public key is refused before anything else.
    expect((await getSeo(pk.key, "https://elsewhere.example")).status).toBe(403);
    // And a public key cannot even carry the settings scopes.
    const refused = await call("POST", `/api/v1/sites/${site.id}/api-keys`, {
      headers: {
        "x-user-id": `user-${site.org_id}`,
        "x-session-kind": "staff",
        "x-org-memberships": JSON.stringify([
          { org_id: site.org_id, role: "org_owner", permissions: [], owner: true },
        ]),
        "x-site-memberships": "[]",
      },
      body: { name: "pk", kind: "public", scopes: ["site:read"], allowed_origins: [ORIGIN] },
    });
    expect(refused.status).toBe(400);
    expect((await problem(refused)).code).toBe("SCOPE_NOT_ALLOWED");
  });

  it("reads count on the read quota, writes on the write quota", async () => {
    const t = await settingsTenant();
    for (const res of [await getSettings(t.ck), await getSeo(t.ck)]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-policy")).toBe('"reads";q=600;w=60');
    }
    for (const res of [
      await patchSettings(t.ck, { settings: { social: {} } }),
      await patchSeo(t.ck, { meta_title: "t" }),
    ]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-policy")).toBe('"writes";q=60;w=60');
    }
  });
});

describe("GET /v1/site/settings: an allowlist", () => {
  it("returns only the allowlisted keys of a document planted straight in sites' database", async () => {
    const t = await settingsTenant();
    await plantSettings(t.site.id, { ...PLANTED_PRIVATE, ...PLANTED_EDITABLE });
    const res = await getSettings(t.ck);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { settings: Json };
    expect(body).toEqual({ settings: PLANTED_EDITABLE });
    expect(Object.keys(body.settings).sort()).toEqual([...SITE_SETTINGS_KEYS].sort());
    const text = JSON.stringify(body);
    for (const leaked of [
      "secret-token",
      "<script>",
      "future_key",
      "google_site_verification",
      "Site title",
    ]) {
      expect(text).not.toContain(leaked);
    }
  });

  it("keys absent from the stored document are absent; a new site reads {}", async () => {
    const t = await settingsTenant();
    expect(await (await getSettings(t.ck)).json()).toEqual({ settings: {} });
    await plantSettings(t.site.id, { social: { x: 1 }, future_key: 1 });
    expect(await (await getSettings(t.ck)).json()).toEqual({ settings: { social: { x: 1 } } });
  });

  it("a stored document that is not a JSON object reads as {} with settings_unreadable", async () => {
    const t = await settingsTenant();
    await plantSettings(t.site.id, "[1,2,3]");
    expect(await (await getSettings(t.ck)).json()).toEqual({ settings: {}, settings_unreadable: true });
  });

  it("reads the document sites holds now: a write through the sites PATCH shows at once", async () => {
    const t = await settingsTenant();
    await getSettings(t.ck);
    const patched = await sitesApi("PATCH", `/api/v1/sites/${t.site.id}`, t.site.org_id, {
      settings: { social: { mastodon: "https://m.example/@site" } },
    });
    expect(patched.status).toBe(200);
    expect(await (await getSettings(t.ck)).json()).toEqual({
      settings: { social: { mastodon: "https://m.example/@site" } },
    });
  });
});

describe("PATCH /v1/site/settings: merged through the sites service", () => {
  it("merges allowlisted keys; other stored keys, ignored fields and the site record stay as they were", async () => {
    const t = await settingsTenant();
    await plantSettings(t.site.id, { ...PLANTED_PRIVATE, ...PLANTED_EDITABLE });
    const before = await sitesApi("GET", `/api/v1/sites/${t.site.id}`, t.site.org_id);
    const stored = await storedSettingsText(t.site.id);
    // Issue 33: keys outside the allowlist were ignored; now they are refused, named, and nothing is stored.
    const refused = await patchSettings(t.ck, {
      settings: {
        social: { instagram: "https://insta.example/site" },
        integrations: { analytics_token: "attacker" },
        code_injection: { head: "<script>evil()</script>" },
        future_key: "overwritten?",
      },
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: "BAD_REQUEST",
      details: {
        path: "settings.integrations",
        unknown: ["integrations", "code_injection", "future_key"],
      },
    });
    expect(await storedSettingsText(t.site.id)).toBe(stored);
    // The spec's tolerance: org_id, status, site_id and slug are ignored, at the top and inside settings.
    const res = await patchSettings(t.ck, {
      settings: {
        social: { instagram: "https://insta.example/site" },
        subscriptions_enabled: true,
        search: null,
        org_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        status: "deleted",
        site_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        slug: "hijacked",
      },
      org_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
      status: "deleted",
      site_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
      slug: "hijacked",
    });
    expect(res.status).toBe(200);
    const { search: _removed, ...keptEditable } = PLANTED_EDITABLE;
    const expectedEditable = {
      ...keptEditable,
      social: { instagram: "https://insta.example/site" },
      subscriptions_enabled: true,
    };
    expect(await res.json()).toEqual({ settings: expectedEditable });
    expect(await storedSettings(t.site.id)).toEqual({ ...PLANTED_PRIVATE, ...expectedEditable });

    const after = await sitesApi("GET", `/api/v1/sites/${t.site.id}`, t.site.org_id);
    expect(after.status).toBe(200);
    for (const field of ["org_id", "status", "slug", "id", "name"]) {
      expect(after.body[field], field).toEqual(before.body[field]);
    }
  });

  it("top-level merge: a key sent replaces that key's value whole (no deep merge), like the sites PATCH", async () => {
    const t = await settingsTenant();
    await plantSettings(t.site.id, {
      customization: { theme_base: "dark", typography: { font_primary: "Inter" }, layout: { radius: 8 } },
      social: { twitter: "t" },
    });
    const res = await patchSettings(t.ck, { settings: { customization: { theme_base: "light" } } });
    expect(res.status).toBe(200);
    expect(await storedSettings(t.site.id)).toEqual({
      customization: { theme_base: "light" },
      social: { twitter: "t" },
    });
    // GET -> modify -> PATCH round-trips: sending back what was read changes nothing.
    const read = (await (await getSettings(t.ck)).json()) as { settings: Json };
    expect((await patchSettings(t.ck, read)).status).toBe(200);
    expect(await storedSettings(t.site.id)).toEqual({
      customization: { theme_base: "light" },
      social: { twitter: "t" },
    });
  });

  it("a body with nothing editable is 400 NOTHING_EDITABLE and stores nothing", async () => {
    const t = await settingsTenant();
    await plantSettings(t.site.id, PLANTED_EDITABLE);
    const stored = await storedSettingsText(t.site.id);
    for (const body of [
      {},
      { settings: {} },
      { settings: { org_id: "x", slug: "y" } },
      { org_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV", status: "active", site_id: "x", slug: "y" },
    ]) {
      const res = await patchSettings(t.ck, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await problem(res)).code, JSON.stringify(body)).toBe("NOTHING_EDITABLE");
    }
    // Issue 33: a key outside the allowlist (or an editable key outside "settings") was dropped, then
    // NOTHING_EDITABLE; now the first is named (400 BAD_REQUEST, details.path).
    for (const [body, path] of [
      [{ settings: { integrations: {}, future_key: 1, org_id: "x", slug: "y" } }, "settings.integrations"],
      // The editable keys belong under "settings".
      [{ social: { twitter: "t" } }, "social"],
    ] as const) {
      const res = await patchSettings(t.ck, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json(), JSON.stringify(body)).toMatchObject({
        code: "BAD_REQUEST",
        details: { path },
      });
    }
    for (const body of [{ settings: "social" }, { settings: null }, { settings: [1] }, "not json"]) {
      const res = await patchSettings(t.ck, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await problem(res)).code, JSON.stringify(body)).toBe("BAD_REQUEST");
    }
    expect(await storedSettingsText(t.site.id)).toBe(stored);
  });

  it("a body above 1 MiB is 413, as on the sites PATCH", async () => {
    const t = await settingsTenant();
    const res = await patchSettings(t.ck, { settings: { advanced: { blob: "x".repeat(1024 * 1024) } } });
    expect(res.status).toBe(413);
    expect((await problem(res)).code).toBe("PAYLOAD_TOO_LARGE");
    expect(await storedSettings(t.site.id)).toEqual({});
  });

  it("concurrent merges of different keys all land (compare-and-swap, re-merged on conflict)", async () => {
    // site:code: one of the merges writes `advanced` (markup, issue 19).
    const t = await settingsTenant(["site:read", "site:write", "site:code"]);
    await plantSettings(t.site.id, { future_key: 1 });
    const patches: Json[] = [
      { social: { a: 1 } },
      { search: { b: 2 } },
      { advanced: { c: 3 } },
      { legal_links: [4] },
      { footer_columns: [5] },
      { subscriptions_enabled: true },
      { language_url_mode: "prefix" },
    ];
    const answers = await Promise.all(patches.map((settings) => patchSettings(t.ck, { settings })));
    expect(answers.map((r) => r.status)).toEqual(patches.map(() => 200));
    expect(await storedSettings(t.site.id)).toEqual(Object.assign({ future_key: 1 }, ...patches));
  });
});

/** The same change through content (a merge) and through the sites PATCH (the merged whole document). */
async function bothWays(
  stored: Json | string,
  contentWrite: (key: string) => Promise<Response>,
  merged: unknown,
): Promise<{ content: { status: number; body: Json }; sites: SitesAnswer; unchanged: boolean }> {
  const t = await settingsTenant();
  await plantSettings(t.site.id, stored);
  const before = await storedSettingsText(t.site.id);
  const res = await contentWrite(t.ck);
  const contentBody = (await res.json()) as Json;
  const unchanged = (await storedSettingsText(t.site.id)) === before;
  const sites = await sitesApi("PATCH", `/api/v1/sites/${t.site.id}`, t.site.org_id, { settings: merged });
  return { content: { status: res.status, body: contentBody }, sites, unchanged };
}

describe("refusals: the sites validator's code and status, nothing stored", () => {
  const base: Json = { social: { twitter: "t" }, integrations: { token: "x" } };
  const cases: { name: string; patch: Json; code: string; status: number }[] = [
    {
      name: "theme_base outside the five values",
      patch: { customization: { theme_base: "neon" } },
      code: "CUSTOMIZATION_INVALID_THEME_BASE",
      status: 400,
    },
    {
      name: "a font family with CSS punctuation",
      patch: { customization: { typography: { font_primary: "Inter; color: red" } } },
      code: "CUSTOMIZATION_TYPOGRAPHY_INVALID",
      status: 400,
    },
    {
      name: "layout radius out of range",
      patch: { customization: { layout: { radius: 65 } } },
      code: "CUSTOMIZATION_LAYOUT_OUT_OF_RANGE",
      status: 400,
    },
    {
      name: "customization not an object",
      patch: { customization: "dark" },
      code: "CUSTOMIZATION_INVALID_SHAPE",
      status: 400,
    },
    {
      name: "a document nested deeper than 64 levels",
      patch: { advanced: JSON.parse(`${"[".repeat(70)}${"]".repeat(70)}`) as unknown },
      code: "BAD_REQUEST",
      status: 400,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: ${c.status} ${c.code}, the same answer as the sites PATCH`, async () => {
      const r = await bothWays(base, (key) => patchSettings(key, { settings: c.patch }), {
        ...base,
        ...c.patch,
      });
      expect(r.content.status).toBe(c.status);
      expect(r.content.body.code).toBe(c.code);
      expect(r.unchanged).toBe(true);
      expect(r.sites.status).toBe(r.content.status);
      expect(r.sites.body.code).toBe(r.content.body.code);
      expect(r.sites.body.detail).toBe(r.content.body.detail);
    });
  }

  it("an undeclared key inside an allowlisted value: 400 SETTINGS_UNKNOWN_KEY with its path, the same body as the sites PATCH (issue 31)", async () => {
    const rows: [Json, string][] = [
      [{ customization: { theme_base: "dark", custom_css: "body{}" } }, "settings.customization.custom_css"],
      [
        { customization: { typography: { font_primary: "Inter", scale: 2 } } },
        "settings.customization.typography.scale",
      ],
    ];
    for (const [patch, path] of rows) {
      const r = await bothWays(base, (key) => patchSettings(key, { settings: patch }), { ...base, ...patch });
      expect(r.content.status).toBe(400);
      const { instance: _i, request_id: _r, ...content } = r.content.body;
      expect(content).toMatchObject({ code: "SETTINGS_UNKNOWN_KEY", details: { path } });
      expect(String(content.detail).startsWith(`${path}: `)).toBe(true);
      expect(r.unchanged).toBe(true);
      const { instance: _si, request_id: _sr, ...sites } = r.sites.body;
      expect(sites).toEqual(content);
    }
  });

  it("ignores org_id, status, site_id and slug inside settings too, and keys stored before the schema pass unchanged", async () => {
    const t = await settingsTenant();
    const older = { ...base, seo: { meta_title: "T", title_suffix: " | Old" }, future_key: { a: 1 } };
    await plantSettings(t.site.id, older);
    const res = await patchSettings(t.ck, {
      settings: {
        social: { x: "new" },
        org_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        status: "deleted",
        site_id: "x",
        slug: "y",
      },
    });
    expect(res.status).toBe(200);
    expect(await storedSettings(t.site.id)).toEqual({ ...older, social: { x: "new" } });
  });

  it("a stored part that fails the validator refuses the merge as it refuses a PATCH of the merged document", async () => {
    const stored = {
      ...base,
      modals: [{ id: "m1", title: "Hi", content: { kind: "text", text: "x" }, html: "<b>" }],
    };
    const r = await bothWays(stored, (key) => patchSettings(key, { settings: { social: { x: 1 } } }), {
      ...stored,
      social: { x: 1 },
    });
    expect(r.content.status).toBe(400);
    expect(r.content.body.code).toBe("MODALS_MARKUP_FORBIDDEN");
    expect(r.unchanged).toBe(true);
    expect([r.sites.status, r.sites.body.code, r.sites.body.detail]).toEqual([
      r.content.status,
      r.content.body.code,
      r.content.body.detail,
    ]);
  });

  it("a stored document that is not a JSON object: 409 SETTINGS_UNREADABLE, as the sites PATCH", async () => {
    const r = await bothWays('"legacy"', (key) => patchSettings(key, { settings: { social: {} } }), {
      social: {},
    });
    expect(r.content.status).toBe(409);
    expect(r.content.body.code).toBe("SETTINGS_UNREADABLE");
    expect(r.unchanged).toBe(true);
    expect([r.sites.status, r.sites.body.code]).toEqual([409, "SETTINGS_UNREADABLE"]);
  });

  it("SEO: an og image URL outside the asset rule is 400 SETTINGS_INVALID_ASSET_URL, as the sites PATCH", async () => {
    for (const url of ["javascript:alert(1)", "//evil.example/x.png", "data:image/png;base64,AAAA"]) {
      const r = await bothWays(base, (key) => patchSeo(key, { default_og_image: url }), {
        ...base,
        seo: { default_og_image: url },
      });
      expect(r.content.status, url).toBe(400);
      expect(r.content.body.code, url).toBe("SETTINGS_INVALID_ASSET_URL");
      expect(r.unchanged, url).toBe(true);
      expect([r.sites.status, r.sites.body.code, r.sites.body.detail]).toEqual([
        400,
        "SETTINGS_INVALID_ASSET_URL",
        r.content.body.detail,
      ]);
    }
  });

  it("SEO: a new external image refused for good by ingest is 422 IMAGEM_EXTERNA_INVALIDA with invalid_images", async () => {
    const url = "https://img.test/missing.png";
    const r = await bothWays(base, (key) => patchSeo(key, { default_og_image: url }), {
      ...base,
      seo: { default_og_image: url },
    });
    expect(r.content.status).toBe(422);
    expect(r.content.body.code).toBe("IMAGEM_EXTERNA_INVALIDA");
    expect(r.content.body.invalid_images).toEqual([
      expect.objectContaining({ path: "settings.seo.default_og_image", url }),
    ]);
    expect(r.unchanged).toBe(true);
    expect(r.sites.status).toBe(422);
    expect(r.sites.body.code).toBe("IMAGEM_EXTERNA_INVALIDA");
    expect(r.sites.body.invalid_images).toEqual(r.content.body.invalid_images);
  });
});

describe("site-level SEO", () => {
  it("reads every allowed key (null when unset) and only those of settings.seo", async () => {
    const t = await settingsTenant();
    expect(await (await getSeo(t.ck)).json()).toEqual(
      Object.fromEntries(SITE_SEO_KEYS.map((k) => [k, null])),
    );
    await plantSettings(t.site.id, {
      seo: { meta_title: "T", noindex: false, google_site_verification: "tok", future_seo: 1 },
      social: {},
    });
    const body = (await (await getSeo(t.ck)).json()) as Json;
    expect(Object.keys(body).sort()).toEqual([...SITE_SEO_KEYS].sort());
    expect(body).toMatchObject({ meta_title: "T", noindex: false, meta_description: null });
    expect(JSON.stringify(body)).not.toContain("tok");
  });

  it("merges allowed keys into settings.seo (null removes); other SEO and settings keys untouched", async () => {
    const t = await settingsTenant();
    await plantSettings(t.site.id, {
      seo: { meta_title: "Old", og_title: "Old OG", google_site_verification: "tok" },
      integrations: { x: 1 },
    });
    const changes = {
      meta_description: "About the site",
      og_title: null,
      twitter_card: "summary_large_image",
      noindex: true,
    };
    // Issue 33: keys outside the site SEO allowlist were ignored; now they are refused, named.
    const refused = await patchSeo(t.ck, {
      ...changes,
      canonical_url: "https://elsewhere.example/",
      google_site_verification: "attacker",
      focus_keyword: "ignored",
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: "BAD_REQUEST",
      details: {
        path: "canonical_url",
        unknown: ["canonical_url", "google_site_verification", "focus_keyword"],
      },
    });
    const res = await patchSeo(t.ck, changes);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      ...Object.fromEntries(SITE_SEO_KEYS.map((k) => [k, null])),
      meta_title: "Old",
      meta_description: "About the site",
      twitter_card: "summary_large_image",
      noindex: true,
    });
    expect(await storedSettings(t.site.id)).toEqual({
      seo: {
        meta_title: "Old",
        google_site_verification: "tok",
        meta_description: "About the site",
        twitter_card: "summary_large_image",
        noindex: true,
      },
      integrations: { x: 1 },
    });
  });

  it("an external og image is rehosted by sites (the CDN URL is stored and answered)", async () => {
    const t = await settingsTenant();
    const res = await patchSeo(t.ck, { default_og_image: "https://img.test/ok.jpg" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { default_og_image: string };
    expect(body.default_og_image).not.toContain("img.test");
    expect(body.default_og_image.startsWith("http://localhost:8787/media/")).toBe(true);
    expect((await storedSettings(t.site.id)).seo).toEqual({ default_og_image: body.default_og_image });
  });

  it("nothing editable is 400 NOTHING_EDITABLE; a value of the wrong type is 400 BAD_REQUEST; nothing stored", async () => {
    const t = await settingsTenant();
    await plantSettings(t.site.id, { seo: { meta_title: "Kept" } });
    const stored = await storedSettingsText(t.site.id);
    const empty = await patchSeo(t.ck, {});
    expect(empty.status).toBe(400);
    expect((await problem(empty)).code).toBe("NOTHING_EDITABLE");
    // Issue 33: these were dropped, then NOTHING_EDITABLE; now the unknown key is named.
    for (const [body, path] of [
      [{ canonical_url: "https://x.example/" }, "canonical_url"],
      [{ settings: { seo: {} } }, "settings"],
    ] as const) {
      const res = await patchSeo(t.ck, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json(), JSON.stringify(body)).toMatchObject({
        code: "BAD_REQUEST",
        details: { path },
      });
    }
    for (const body of [{ twitter_card: "huge" }, { noindex: "yes" }, { meta_title: "x".repeat(301) }]) {
      const res = await patchSeo(t.ck, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await problem(res)).code).toBe("BAD_REQUEST");
    }
    expect(await storedSettingsText(t.site.id)).toBe(stored);
  });

  it("a stored seo that is not an object reads as unset, and a merge replaces it", async () => {
    const t = await settingsTenant();
    await plantSettings(t.site.id, { seo: "legacy" });
    expect(((await (await getSeo(t.ck)).json()) as Json).meta_title).toBeNull();
    expect((await patchSeo(t.ck, { meta_title: "New" })).status).toBe(200);
    expect((await storedSettings(t.site.id)).seo).toEqual({ meta_title: "New" });
  });
});

describe("the tenant wall", () => {
  it("a key reads and writes only its own site's settings, whatever the body names", async () => {
    const a = await settingsTenant();
    const b = await settingsTenant();
    await plantSettings(a.site.id, { social: { site: "a" } });
    await plantSettings(b.site.id, { social: { site: "b" } });
    const bBefore = await storedSettingsText(b.site.id);

    expect(await (await getSettings(a.ck)).json()).toEqual({ settings: { social: { site: "a" } } });
    const res = await call("PATCH", `/v1/site/settings?site_id=${b.site.id}`, {
      key: a.ck,
      body: { site_id: b.site.id, settings: { site_id: b.site.id, social: { site: "a2" } } },
    });
    expect(res.status).toBe(200);
    // The settings write ignores a site_id (the spec); the SEO write has no such tolerance: refused, named.
    const naming = await patchSeo(a.ck, { site_id: b.site.id, meta_title: "A" });
    expect(naming.status).toBe(400);
    expect(await naming.json()).toMatchObject({ code: "BAD_REQUEST", details: { path: "site_id" } });
    expect((await patchSeo(a.ck, { meta_title: "A" })).status).toBe(200);
    expect(await storedSettings(a.site.id)).toEqual({ social: { site: "a2" }, seo: { meta_title: "A" } });
    expect(await storedSettingsText(b.site.id)).toBe(bBefore);
    expect(await (await getSettings(b.ck)).json()).toEqual({ settings: { social: { site: "b" } } });
    expect(((await (await getSeo(b.ck)).json()) as Json).meta_title).toBeNull();
  });
});

describe("a deleted site", () => {
  it("deleted through sites: its keys stop working (401) on every settings and SEO route", async () => {
    const t = await settingsTenant();
    expect((await sitesApi("DELETE", `/api/v1/sites/${t.site.id}`, t.site.org_id)).status).toBe(204);
    for (const res of [
      await getSettings(t.ck),
      await patchSettings(t.ck, { settings: { social: {} } }),
      await getSeo(t.ck),
      await patchSeo(t.ck, { meta_title: "x" }),
    ]) {
      expect(res.status).toBe(401);
    }
  });

  it("deleted in sites before content's projection heard of it: 401 too, and nothing is written", async () => {
    const t = await settingsTenant();
    await plantSettings(t.site.id, { social: { kept: true } });
    const stored = await storedSettingsText(t.site.id);
    for (const status of ["deleted", "archived"]) {
      await setStatusInSitesOnly(t.site.id, status);
      const reads = [await getSettings(t.ck), await getSeo(t.ck)];
      const writes = [
        await patchSettings(t.ck, { settings: { social: {} } }),
        await patchSeo(t.ck, { meta_title: "x" }),
      ];
      for (const res of [...reads, ...writes]) {
        expect(res.status, status).toBe(401);
        expect((await problem(res)).code).toBe("UNAUTHENTICATED");
      }
      expect(await storedSettingsText(t.site.id)).toBe(stored);
    }
  });
});

describe("caches after a write", () => {
  it("the host cache (by-host) and content's projection follow a content write, as after a sites PATCH", async () => {
    const t = await settingsTenant();
    const host = `${t.site.slug}.sites.localhost`;
    const byHost = async () =>
      (await sitesApi("GET", `/api/v1/sites/by-host?host=${host}`, t.site.org_id)).body;
    expect((await byHost()).settings).toEqual({});
    // Now cached in KV; the write must drop it.
    const res = await patchSettings(t.ck, { settings: { social: { twitter: "t" } } });
    expect(res.status).toBe(200);
    expect((await byHost()).settings).toEqual({ social: { twitter: "t" } });
    expect((await patchSeo(t.ck, { meta_title: "Fresh" })).status).toBe(200);
    expect(((await byHost()).settings as { seo: Json }).seo).toEqual({ meta_title: "Fresh" });

    // Content's projection got the push (updated_at moved with the write).
    const record = await sitesApi("GET", `/api/v1/sites/${t.site.id}`, t.site.org_id);
    const site = (await (await call("GET", "/v1/site", { key: t.ck })).json()) as Json;
    expect(site.updated_at).toBe(record.body.updated_at);
    expect(site.updated_at).not.toBe(t.site.updated_at);
  });
});

describe("OpenAPI", () => {
  it("lists the four operations with their security scopes and key kinds", async () => {
    const doc = (await (await content.fetch(new Request("http://content.test/openapi.json"))).json()) as {
      paths: Record<string, Record<string, { security: Record<string, string[]>[] }>>;
    };
    expect(doc.paths["/v1/site/settings"]?.get?.security).toEqual([{ apiKey: ["site:read"] }]);
    expect(doc.paths["/v1/site/settings"]?.patch?.security).toEqual([{ apiKey: ["site:write"] }]);
    expect(doc.paths["/v1/site/seo"]?.get?.security).toEqual([
      { apiKey: ["seo:read"] },
      { publicReadKey: ["seo:read"] },
      { publicKeyQuery: ["seo:read"] },
    ]);
    expect(doc.paths["/v1/site/seo"]?.patch?.security).toEqual([{ apiKey: ["seo:write"] }]);
  });
});

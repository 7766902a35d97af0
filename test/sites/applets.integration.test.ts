import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { type AppletState, setApplet } from "../../src/sites/applets/applets-service";
import { APPLET_CATALOG } from "../../src/sites/applets/catalog";
import type { Services } from "../../src/sites/core/app-env";
import { appletEnabled } from "../../src/sites/site/record";
import { APPLET_SLUG } from "../../src/sites/site/settings/applets";
import { getSite } from "../../src/sites/site/store";
import { contentDbOf } from "../support/content-groups";
import { fetchSigned } from "../support/edge-signing";
import {
  api,
  type EdgeHeaders,
  forceStoredSettings,
  makeSite,
  orgMember,
  purgeCount,
  servicesFor,
  servicesWithContent,
  siteMember,
  sitesEnv,
  storedSettings,
} from "../support/sites-helpers";

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const applets = (siteId: string) => `/api/v1/sites/${siteId}/applets`;

function put(siteId: string, slug: string, body: unknown, headers: EdgeHeaders) {
  return api<AppletState & { code?: string }>("PUT", `${applets(siteId)}/${slug}`, { headers, body });
}

async function list(siteId: string, headers: EdgeHeaders) {
  const res = await api<{ items: AppletState[] }>("GET", applets(siteId), { headers });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
}

async function stored(siteId: string): Promise<Record<string, unknown>> {
  return JSON.parse((await storedSettings(siteId)) ?? "null") as Record<string, unknown>;
}

async function storedApplets(siteId: string) {
  return ((await stored(siteId)).applets ?? {}) as Record<string, Record<string, unknown>>;
}

/** The content type row content holds for the site (null when never defined). */
async function postType(siteId: string, slug: string) {
  return (await contentDbOf(siteId))
    .prepare("SELECT name, is_public, disabled_at FROM post_types WHERE site_id = ? AND slug = ?")
    .bind(siteId, slug)
    .first<{ name: string; is_public: number; disabled_at: string | null }>();
}

/** The real services with some of content's methods replaced (content failing, or observed). */
const servicesWith = (content: Partial<Services["content"]>): Services => servicesWithContent(content);

async function siteRow(siteId: string) {
  const row = await getSite(sitesEnv.DB, siteId);
  if (!row) throw new Error("site row missing");
  return row;
}

describe("the catalog", () => {
  it("holds the forms and legal apps, apps with a content type (one of them private), all slugs valid", () => {
    const slugs = APPLET_CATALOG.map((a) => a.slug);
    expect(slugs).toEqual(expect.arrayContaining(["forms", "legal"]));
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const slug of slugs) expect(slug).toMatch(APPLET_SLUG);
    const templates = APPLET_CATALOG.flatMap((a) => (a.post_type_template ? [a.post_type_template] : []));
    expect(templates.length).toBeGreaterThanOrEqual(4);
    expect(templates.some((t) => !t.public)).toBe(true);
    expect(new Set(templates.map((t) => t.slug)).size).toBe(templates.length);
    expect(APPLET_CATALOG.length).toBeGreaterThanOrEqual(20);
  });
});

describe("GET /v1/sites/{id}/applets", () => {
  it("200 the ENTIRE catalog, in catalog order, each off with installed_at null on a new site", async () => {
    const { site, owner } = await makeSite();
    const items = await list(site.id, owner);
    expect(items.map((a) => a.slug)).toEqual(APPLET_CATALOG.map((a) => a.slug));
    for (const item of items) {
      const app = APPLET_CATALOG.find((a) => a.slug === item.slug)!;
      expect(item).toEqual({
        slug: app.slug,
        name: app.name,
        description: app.description,
        post_type_template: app.post_type_template ?? null,
        enabled: false,
        installed_at: null,
      });
    }
  });

  it("the state is per site: an app installed on one site is off on another", async () => {
    const a = await makeSite();
    const b = await makeSite({}, a.orgId);
    expect((await put(a.site.id, "whatsapp", { enabled: true }, a.owner)).status).toBe(200);
    const onA = (await list(a.site.id, a.owner)).find((x) => x.slug === "whatsapp")!;
    const onB = (await list(b.site.id, a.owner)).find((x) => x.slug === "whatsapp")!;
    expect(onA.enabled).toBe(true);
    expect(onA.installed_at).toMatch(RFC3339);
    expect(onB).toMatchObject({ enabled: false, installed_at: null });
  });

  it("any member reads it (an org_member, a site_author)", async () => {
    const { site, orgId } = await makeSite();
    expect(await list(site.id, orgMember(orgId, "org_member"))).toHaveLength(APPLET_CATALOG.length);
    expect(await list(site.id, siteMember(site.id, "site_author"))).toHaveLength(APPLET_CATALOG.length);
  });

  it("reads apps switched through settings, and an unreadable or malformed document as all off", async () => {
    const at = "2025-03-01T12:00:00.000Z";
    const { site, owner } = await makeSite({
      settings: { applets: { forms: { enabled: true, installed_at: at }, legal: { enabled: false } } },
    });
    const items = await list(site.id, owner);
    expect(items.find((a) => a.slug === "forms")).toMatchObject({ enabled: true, installed_at: at });
    expect(items.find((a) => a.slug === "legal")).toMatchObject({ enabled: false, installed_at: null });
    for (const raw of ["[1]", "not json", '{"applets":"x"}']) {
      await forceStoredSettings(site.id, raw);
      expect((await list(site.id, owner)).every((a) => !a.enabled && a.installed_at === null)).toBe(true);
    }
  });

  it("404 for a missing site or another organization's site; 400 for an id that is not one", async () => {
    const { site } = await makeSite();
    const stranger = orgMember(newId());
    const missing = await api("GET", applets(newId()), { headers: stranger });
    const other = await api("GET", applets(site.id), { headers: stranger });
    expect(missing.status).toBe(404);
    expect(other.text).toBe(missing.text);
    const bad = await api("GET", applets("nope"), { headers: stranger });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("BAD_REQUEST");
  });
});

describe("PUT /v1/sites/{id}/applets/{slug}: install and uninstall", () => {
  it("install: 200 enabled with installed_at, stored as settings.applets.<slug>; the rest of settings untouched", async () => {
    const { site, owner } = await makeSite({
      settings: { seo: { meta_title: "Loja" }, applets: { newsletter: { enabled: true } } },
    });
    const res = await put(site.id, "forms", { enabled: true }, owner);
    expect(res.status, res.text).toBe(200);
    const app = APPLET_CATALOG.find((a) => a.slug === "forms")!;
    expect(res.body).toEqual({
      slug: "forms",
      name: app.name,
      description: app.description,
      post_type_template: null,
      enabled: true,
      installed_at: expect.stringMatching(RFC3339),
    });
    const doc = await stored(site.id);
    expect(doc.seo).toEqual({ meta_title: "Loja" });
    expect(doc.applets).toEqual({
      newsletter: { enabled: true },
      forms: { enabled: true, installed_at: res.body.installed_at },
    });
    expect(appletEnabled(doc, "forms")).toBe(true);
  });

  it("installing an installed app keeps its installed_at and stores nothing (no write, no purge)", async () => {
    const { site, owner } = await makeSite();
    const first = await put(site.id, "legal", { enabled: true }, owner);
    const before = await storedSettings(site.id);
    const purges = await purgeCount(site.id);
    const again = await put(site.id, "legal", { enabled: true }, owner);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await storedSettings(site.id)).toBe(before);
    expect(await purgeCount(site.id)).toBe(purges);
  });

  it("uninstall: enabled false, installed_at null; the app's own settings stay; reinstall is a new installation", async () => {
    const { site, owner } = await makeSite({
      settings: { applets: { whatsapp: { enabled: true, phone: "+5511999990000", message: "Olá!" } } },
    });
    const installed = await put(site.id, "whatsapp", { enabled: true }, owner);
    expect(installed.body.installed_at).toMatch(RFC3339);
    const off = await put(site.id, "whatsapp", { enabled: false }, owner);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ slug: "whatsapp", enabled: false, installed_at: null });
    expect((await storedApplets(site.id)).whatsapp).toEqual({
      enabled: false,
      installed_at: null,
      phone: "+5511999990000",
      message: "Olá!",
    });
    const offAgain = await put(site.id, "whatsapp", { enabled: false }, owner);
    expect(offAgain.body).toEqual(off.body);
    const on = await put(site.id, "whatsapp", { enabled: true }, owner);
    expect(on.body.installed_at).toMatch(RFC3339);
    expect(Date.parse(on.body.installed_at!)).toBeGreaterThanOrEqual(
      Date.parse(installed.body.installed_at!),
    );
    expect((await storedApplets(site.id)).whatsapp).toMatchObject({ enabled: true, phone: "+5511999990000" });
    expect((await list(site.id, owner)).find((a) => a.slug === "whatsapp")).toEqual(on.body);
  });

  it("an app switched on through settings without installed_at gets one on install", async () => {
    const { site, owner } = await makeSite({ settings: { applets: { comments: { enabled: true } } } });
    const res = await put(site.id, "comments", { enabled: true }, owner);
    expect(res.body.installed_at).toMatch(RFC3339);
    expect((await storedApplets(site.id)).comments?.installed_at).toBe(res.body.installed_at);
  });

  it("the full-page cache of the site's hosts is purged after a change", async () => {
    const { site, owner } = await makeSite();
    const purges = await purgeCount(site.id);
    await put(site.id, "faq", { enabled: true }, owner);
    expect(await purgeCount(site.id)).toBe(purges + 1);
    await put(site.id, "faq", { enabled: false }, owner);
    expect(await purgeCount(site.id)).toBe(purges + 2);
    const { results } = await sitesEnv.DB.prepare(
      "SELECT payload_json FROM outbound_effects WHERE site_id = ? AND kind = 'page_purge' ORDER BY created_at DESC, id DESC LIMIT 1",
    )
      .bind(site.id)
      .all<{ payload_json: string }>();
    expect(JSON.parse(results[0]!.payload_json).hosts).toContain(`${site.slug}.${sitesEnv.PLATFORM_DOMAIN}`);
  });

  it("20 concurrent PUTs of different apps on one site: every flag stored, nothing lost", async () => {
    const { site, owner } = await makeSite();
    const slugs = APPLET_CATALOG.slice(0, 20).map((a) => a.slug);
    const results = await Promise.all(slugs.map((slug) => put(site.id, slug, { enabled: true }, owner)));
    expect(results.map((r) => r.status)).toEqual(slugs.map(() => 200));
    const saved = await storedApplets(site.id);
    expect(Object.keys(saved).sort()).toEqual([...slugs].sort());
    for (const slug of slugs) expect(saved[slug]).toMatchObject({ enabled: true });
    const items = await list(site.id, owner);
    expect(items.filter((a) => a.enabled).map((a) => a.slug)).toEqual(slugs);
  });
});

describe("PUT: the content type of an app with post_type_template", () => {
  it("install defines it in content, uninstall disables it (posts kept), reinstall enables it again", async () => {
    const { site, owner } = await makeSite();
    expect(await postType(site.id, "event")).toBeNull();
    expect((await put(site.id, "events", { enabled: true }, owner)).status).toBe(200);
    expect(await postType(site.id, "event")).toEqual({ name: "Eventos", is_public: 1, disabled_at: null });
    expect((await put(site.id, "events", { enabled: false }, owner)).status).toBe(200);
    expect((await postType(site.id, "event"))?.disabled_at).toMatch(RFC3339);
    expect((await put(site.id, "events", { enabled: true }, owner)).status).toBe(200);
    expect(await postType(site.id, "event")).toMatchObject({ disabled_at: null });
  });

  it("every template of the catalog is accepted by content, a private one stays private", async () => {
    const { site, owner } = await makeSite();
    for (const app of APPLET_CATALOG.filter((a) => a.post_type_template)) {
      const res = await put(site.id, app.slug, { enabled: true }, owner);
      expect(res.status, `${app.slug}: ${res.text}`).toBe(200);
      const template = app.post_type_template!;
      expect(await postType(site.id, template.slug)).toEqual({
        name: template.name,
        is_public: template.public ? 1 : 0,
        disabled_at: null,
      });
    }
  });

  it("content is changed BEFORE the flag is stored (install and uninstall)", async () => {
    const { site } = await makeSite();
    const seen: { call: string; flagStored: boolean }[] = [];
    const services = servicesWith({
      async definePostType(input) {
        seen.push({ call: "define", flagStored: appletEnabled(await stored(site.id), "portfolio") });
        return servicesFor().content.definePostType(input);
      },
      async removePostType(input) {
        seen.push({ call: "remove", flagStored: appletEnabled(await stored(site.id), "portfolio") });
        return servicesFor().content.removePostType(input);
      },
    });
    await setApplet(sitesEnv, services, await siteRow(site.id), "portfolio", true);
    expect(appletEnabled(await stored(site.id), "portfolio")).toBe(true);
    await setApplet(sitesEnv, services, await siteRow(site.id), "portfolio", false);
    expect(seen).toEqual([
      { call: "define", flagStored: false },
      { call: "remove", flagStored: true },
    ]);
    expect(appletEnabled(await stored(site.id), "portfolio")).toBe(false);
  });

  const failures: [string, Partial<Services["content"]>][] = [
    [
      "content throws",
      {
        definePostType: () => Promise.reject(new Error("content is down")),
        removePostType: () => Promise.reject(new Error("content is down")),
      },
    ],
    [
      "content refuses ({ok: false})",
      {
        definePostType: async () => ({ ok: false, reason: "nope" }),
        removePostType: async () => ({ ok: false, reason: "nope" }),
      },
    ],
    [
      "content hangs past the deadline",
      { definePostType: () => new Promise(() => {}), removePostType: () => new Promise(() => {}) },
    ],
    [
      "content answers something else",
      {
        definePostType: async () => undefined as never,
        removePostType: async () => "yes" as never,
      },
    ],
  ];

  for (const [name, content] of failures) {
    it(`${name}: 502 APPLET_CONTENT_UNAVAILABLE, settings byte-identical, no purge (install and uninstall)`, async () => {
      const { site, owner } = await makeSite({
        settings: { applets: { jobs: { enabled: false, city: "SP" } } },
      });
      const services = servicesWith(content);
      const before = await storedSettings(site.id);
      const purges = await purgeCount(site.id);
      await expect(
        setApplet(sitesEnv, services, await siteRow(site.id), "testimonials", true, { contentTimeoutMs: 50 }),
      ).rejects.toMatchObject({ status: 502, code: "APPLET_CONTENT_UNAVAILABLE" });
      expect(await storedSettings(site.id)).toBe(before);
      expect(await purgeCount(site.id)).toBe(purges);

      expect((await put(site.id, "jobs", { enabled: true }, owner)).status).toBe(200);
      const installed = await storedSettings(site.id);
      const purgesInstalled = await purgeCount(site.id);
      await expect(
        setApplet(sitesEnv, services, await siteRow(site.id), "jobs", false, { contentTimeoutMs: 50 }),
      ).rejects.toMatchObject({ status: 502, code: "APPLET_CONTENT_UNAVAILABLE" });
      expect(await storedSettings(site.id)).toBe(installed);
      expect(await purgeCount(site.id)).toBe(purgesInstalled);
      expect(await postType(site.id, "job")).toMatchObject({ disabled_at: null });
    });
  }

  it("the content binding failing over HTTP's own services (a binding without the methods): 502, nothing stored", async () => {
    const { site } = await makeSite();
    const unreachable = { ...sitesEnv, CONTENT: {} as Fetcher };
    const before = await storedSettings(site.id);
    await expect(
      setApplet(unreachable, servicesFor(unreachable), await siteRow(site.id), "team", true),
    ).rejects.toMatchObject({ status: 502, code: "APPLET_CONTENT_UNAVAILABLE" });
    expect(await storedSettings(site.id)).toBe(before);
    expect(await postType(site.id, "team-member")).toBeNull();
  });

  it("an app without a content type never calls content's post types (installs with them down)", async () => {
    const { site } = await makeSite();
    const down = () => Promise.reject(new Error("must not be called"));
    const services = servicesWith({ definePostType: down, removePostType: down });
    const state = await setApplet(sitesEnv, services, await siteRow(site.id), "newsletter", true);
    expect(state).toMatchObject({ slug: "newsletter", enabled: true });
    expect(appletEnabled(await stored(site.id), "newsletter")).toBe(true);
  });

  it("a flag that cannot be stored after content changed puts content back (the site deleted meanwhile)", async () => {
    const { site, owner } = await makeSite();
    const services = servicesWith({
      async definePostType(input) {
        const answer = await servicesFor().content.definePostType(input);
        await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner });
        return answer;
      },
    });
    await expect(
      setApplet(sitesEnv, services, await siteRow(site.id), "real-estate", true),
    ).rejects.toMatchObject({ status: 404 });
    expect((await postType(site.id, "property"))?.disabled_at).toMatch(RFC3339);
  });
});

describe("PUT: refusals", () => {
  it("404 APPLET_NOT_FOUND for a slug outside the catalog; nothing stored", async () => {
    const { site, owner } = await makeSite();
    const before = await storedSettings(site.id);
    for (const slug of ["no-such-app", "FORMS", "forms.x", "a".repeat(80), "%20"]) {
      const res = await put(site.id, slug, { enabled: true }, owner);
      expect(res.status, slug).toBe(404);
      expect(res.body.code, slug).toBe("APPLET_NOT_FOUND");
    }
    expect(await storedSettings(site.id)).toBe(before);
  });

  it("a missing site or another organization's site is the opaque NOT_FOUND, whatever the slug", async () => {
    const { site } = await makeSite();
    const stranger = orgMember(newId());
    const missing = await put(newId(), "forms", { enabled: true }, stranger);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("NOT_FOUND");
    for (const slug of ["forms", "no-such-app"]) {
      const res = await put(site.id, slug, { enabled: true }, stranger);
      expect(res.text).toBe(missing.text);
    }
  });

  it("400 BAD_REQUEST for a body other than {enabled: boolean}; nothing stored", async () => {
    const { site, owner } = await makeSite();
    const before = await storedSettings(site.id);
    const bodies = [
      {},
      { enabled: "true" },
      { enabled: 1 },
      { enabled: null },
      { enabled: true, extra: 1 },
      [],
      null,
    ];
    for (const body of bodies) {
      const res = await put(site.id, "forms", body, owner);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("BAD_REQUEST");
    }
    const raw = await api("PUT", `${applets(site.id)}/forms`, { headers: owner, rawBody: "{" });
    expect(raw.status).toBe(400);
    const none = await api("PUT", `${applets(site.id)}/forms`, { headers: owner });
    expect(none.status).toBe(400);
    expect(await storedSettings(site.id)).toBe(before);
  });

  it("403 FORBIDDEN for a member whose role may not manage apps (site_author, org_member)", async () => {
    const { site, orgId } = await makeSite();
    for (const headers of [siteMember(site.id, "site_author"), orgMember(orgId, "org_member")]) {
      const res = await put(site.id, "forms", { enabled: true }, headers);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    }
    expect((await put(site.id, "forms", { enabled: true }, siteMember(site.id, "site_editor"))).status).toBe(
      200,
    );
  });

  it("400 SETTINGS_INVALID_APPLETS when the stored applets fail the validator; nothing stored, content untouched", async () => {
    const { site, owner } = await makeSite();
    const cases = [
      '{"applets":"x"}',
      '{"applets":{"events":"on"}}',
      '{"applets":{"newsletter":{"enabled":"yes"}}}',
      '{"applets":{"forms":{"enabled":true,"installed_at":"yesterday"}}}',
      JSON.stringify({
        applets: Object.fromEntries(
          Array.from({ length: 65 }, (_, i) => [`legacy-${i}`, { enabled: false }]),
        ),
      }),
    ];
    for (const raw of cases) {
      await forceStoredSettings(site.id, raw);
      const res = await put(site.id, "events", { enabled: true }, owner);
      expect(res.status, raw).toBe(400);
      expect(res.body.code, raw).toBe("SETTINGS_INVALID_APPLETS");
      expect(await storedSettings(site.id)).toBe(raw);
    }
    expect(await postType(site.id, "event")).toBeNull();
  });

  it("409 SETTINGS_UNREADABLE when the stored document is not a JSON object; nothing stored, content untouched", async () => {
    const { site, owner } = await makeSite();
    for (const raw of ["[1]", "not json", "null"]) {
      await forceStoredSettings(site.id, raw);
      const res = await put(site.id, "faq", { enabled: true }, owner);
      expect(res.status, raw).toBe(409);
      expect(res.body.code).toBe("SETTINGS_UNREADABLE");
      expect(await storedSettings(site.id)).toBe(raw);
    }
    expect(await postType(site.id, "faq")).toBeNull();
  });
});

describe("the forms app: uninstall keeps forms and leads, reinstall brings everything back", () => {
  const CONTENT = "http://content.test";

  function contentCall(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
    return fetchSigned(sitesEnv.CONTENT, `${CONTENT}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async function submitLead(siteId: string, formId: string) {
    const form = await contentCall("GET", `/v1/sites/${siteId}/forms/${formId}`);
    const token = form.status === 200 ? ((await form.json()) as { token: string }).token : "x";
    const ip = `198.18.7.${Math.floor(Math.random() * 250) + 1}`;
    return contentCall(
      "POST",
      `/v1/sites/${siteId}/forms/${formId}/submissions`,
      { "cf-connecting-ip": ip },
      {
        _token: token,
        name: "Ana Souza",
        email: `ana-${newId().toLowerCase()}@example.com`,
      },
    );
  }

  async function counts(siteId: string) {
    const row = await (await contentDbOf(siteId))
      .prepare(
        "SELECT (SELECT COUNT(*) FROM forms WHERE site_id = ?1 AND deleted_at IS NULL) AS forms, (SELECT COUNT(*) FROM leads WHERE site_id = ?1) AS leads",
      )
      .bind(siteId)
      .first<{ forms: number; leads: number }>();
    return row!;
  }

  it("off: the anonymous form and submission answer the opaque 404, data kept; on again: all back", async () => {
    const { site, owner } = await makeSite();
    expect((await put(site.id, "forms", { enabled: true }, owner)).status).toBe(200);
    const created = await contentCall("POST", `/api/v1/sites/${site.id}/forms`, owner, {
      name: "Contato",
      fields: [
        { name: "name", type: "text", required: true },
        { name: "email", type: "email", required: true },
      ],
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const form = (await created.json()) as { id: string };
    expect((await submitLead(site.id, form.id)).status).toBe(202);
    expect(await counts(site.id)).toEqual({ forms: 1, leads: 1 });

    expect((await put(site.id, "forms", { enabled: false }, owner)).status).toBe(200);
    const missingForm = await contentCall("GET", `/v1/sites/${site.id}/forms/${newId()}`);
    expect(missingForm.status).toBe(404);
    const opaque = await missingForm.text();
    const visitor = await contentCall("GET", `/v1/sites/${site.id}/forms/${form.id}`);
    expect(visitor.status).toBe(404);
    expect(await visitor.text()).toBe(opaque);
    const submission = await submitLead(site.id, form.id);
    expect(submission.status).toBe(404);
    expect(await submission.text()).toBe(opaque);
    expect((await contentCall("GET", `/api/v1/sites/${site.id}/forms`, owner)).status).toBe(404);
    expect(await counts(site.id)).toEqual({ forms: 1, leads: 1 });

    expect((await put(site.id, "forms", { enabled: true }, owner)).status).toBe(200);
    expect((await contentCall("GET", `/v1/sites/${site.id}/forms/${form.id}`)).status).toBe(200);
    const staffList = await contentCall("GET", `/api/v1/sites/${site.id}/forms`, owner);
    expect(((await staffList.json()) as { items: { id: string }[] }).items.map((f) => f.id)).toEqual([
      form.id,
    ]);
    expect((await submitLead(site.id, form.id)).status).toBe(202);
    expect(await counts(site.id)).toEqual({ forms: 1, leads: 2 });
  });
});

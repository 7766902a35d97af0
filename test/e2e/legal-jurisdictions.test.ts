/**
 * Issue 23 item 7, through the gateway: `settings.legal.jurisdiction` (br, eu, uk, us-ca; default br) picks
 * the set of legal documents, the site's language picks their text where a translation exists, the
 * catalog previews another set with `?jurisdiction=`, and the English documents keep the placeholders
 * the site cannot fill as `pendencias`.
 */
import { describe, expect, it } from "vitest";
import { call, createOrg, verifiedUser } from "../support/platform";

interface Entry {
  slug: string;
  title: string;
  path: string;
  is_index: boolean;
  language: string;
}
interface Item {
  slug: string;
  resultado: string;
  post_id?: string;
  pendencias: string[];
}

async function legalSite(language: string, legal: Record<string, unknown>) {
  const owner = await verifiedUser();
  const org = await createOrg(owner.access_token);
  const slug = `legal-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const made = await call<{ id: string }>("POST", "/api/v1/sites", {
    token: owner.access_token,
    body: {
      org_id: org.id,
      name: "Acme Shop",
      slug,
      default_language: language,
      settings: { applets: { legal: { enabled: true } }, legal },
    },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { token: owner.access_token, siteId: made.body.id };
}

const catalogo = (token: string, siteId: string, query = "") =>
  call<Entry[]>("GET", `/api/v1/sites/${siteId}/legal/catalogo${query}`, { token });

/** The text of a generated page (a draft: its editable source), read with a secret key of the site made through the gateway. */
async function pageText(token: string, siteId: string, postId: string): Promise<string> {
  const key = await call<{ key: string }>("POST", `/api/v1/sites/${siteId}/api-keys`, {
    token,
    body: { name: "reader", kind: "secret", scopes: ["posts:write"] },
  });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  const post = await call<{ blocks_json: unknown }>("GET", `/v1/posts/${postId}/source`, {
    headers: { authorization: `Bearer ${key.body.key}` },
  });
  expect(post.status, JSON.stringify(post.body)).toBe(200);
  return JSON.stringify(post.body.blocks_json);
}

describe("legal pages beyond Brazil", () => {
  it("eu: the GDPR set in English; generation fills what the site knows and returns the rest as pendencias", async () => {
    const { token, siteId } = await legalSite("en", { jurisdiction: "eu", razao_social: "Acme Ltd" });
    const catalog = await catalogo(token, siteId);
    expect(catalog.status).toBe(200);
    expect(catalog.body.map((e) => [e.slug, e.title, e.language])).toEqual([
      ["legal", "Legal information", "en"],
      ["privacy-policy", "Privacy Policy", "en"],
      ["terms-of-use", "Terms of Use", "en"],
      ["cookie-policy", "Cookie Policy", "en"],
    ]);
    const generated = await call<{ jurisdiction: string; items: Item[] }>(
      "POST",
      `/api/v1/sites/${siteId}/legal/generate`,
      { token },
    );
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    expect(generated.body.jurisdiction).toBe("eu");
    expect(generated.body.items.map((i) => [i.slug, i.resultado])).toEqual(
      catalog.body.map((e) => [e.slug, "criada"]),
    );
    const privacy = generated.body.items.find((i) => i.slug === "privacy-policy")!;
    expect(privacy.pendencias).toEqual(
      expect.arrayContaining(["[COMPANY REGISTRATION NUMBER]", "[CONTACT E-MAIL]", "[REPRESENTATIVE]"]),
    );
    expect(privacy.pendencias).not.toContain("[LEGAL NAME]");
    expect(privacy.pendencias).not.toContain("[SITE NAME]");
    const text = await pageText(token, siteId, privacy.post_id!);
    expect(text).toContain("General Data Protection Regulation");
    expect(text).toContain("Acme Ltd");
    expect(text).not.toContain("LGPD");
  });

  it("catalogo previews another set with ?jurisdiction=; an unknown one is 400 LEGAL_INVALID_CASE", async () => {
    const { token, siteId } = await legalSite("en", {});
    expect((await catalogo(token, siteId)).body.map((e) => e.slug)).toEqual([
      "legal",
      "politica-de-privacidade",
      "termos-de-uso",
      "politica-de-cookies",
    ]);
    const california = await catalogo(token, siteId, "?jurisdiction=us-ca");
    expect(california.body.map((e) => e.slug)).toEqual([
      "legal",
      "privacy-policy",
      "terms-of-use",
      "cookie-policy",
      "do-not-sell-or-share",
    ]);
    const uk = await catalogo(token, siteId, "?jurisdiction=uk");
    expect(uk.body.map((e) => e.slug)).toEqual(["legal", "privacy-policy", "terms-of-use", "cookie-policy"]);
    for (const bad of ["fr", "", "EU", "us"]) {
      const res = await catalogo(token, siteId, `?jurisdiction=${bad}`);
      expect(res.status, bad).toBe(400);
      expect((res.body as unknown as { code: string }).code).toBe("LEGAL_INVALID_CASE");
    }
  });

  it("br (the default) for an English site: Portuguese documents but for the translated ones", async () => {
    const { token, siteId } = await legalSite("en-GB", {});
    const catalog = await catalogo(token, siteId);
    expect(catalog.body.map((e) => [e.slug, e.language])).toEqual([
      ["legal", "en"],
      ["politica-de-privacidade", "pt"],
      ["termos-de-uso", "pt"],
      ["politica-de-cookies", "en"],
    ]);
    const pt = await legalSite("pt-BR", {});
    expect((await catalogo(pt.token, pt.siteId)).body.every((e) => e.language === "pt")).toBe(true);
  });

  it("us-ca generation writes the opt-out notice; the index lists only the set's pages after a change of jurisdiction", async () => {
    const { token, siteId } = await legalSite("en", {});
    const br = await call<{ items: Item[] }>("POST", `/api/v1/sites/${siteId}/legal/generate`, { token });
    expect(br.status).toBe(200);
    const patched = await call("PATCH", `/api/v1/sites/${siteId}`, {
      token,
      body: { settings: { applets: { legal: { enabled: true } }, legal: { jurisdiction: "us-ca" } } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const ca = await call<{ jurisdiction: string; items: Item[] }>(
      "POST",
      `/api/v1/sites/${siteId}/legal/generate`,
      { token },
    );
    expect(ca.body.jurisdiction).toBe("us-ca");
    const optOut = ca.body.items.find((i) => i.slug === "do-not-sell-or-share")!;
    expect(optOut.pendencias).toEqual(["[CONTACT E-MAIL]", "[TOLL-FREE NUMBER]"]);
    const index = await pageText(token, siteId, ca.body.items[0]!.post_id!);
    expect(index).toContain("/legal/do-not-sell-or-share");
    expect(index).not.toContain("/legal/politica-de-privacidade");
  });

  it("settings.legal.jurisdiction outside the list is 400 SETTINGS_INVALID_LEGAL", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    const res = await call<{ code: string }>("POST", "/api/v1/sites", {
      token: owner.access_token,
      body: {
        org_id: org.id,
        name: "X",
        slug: `x-${Date.now().toString(36)}`,
        settings: { legal: { jurisdiction: "de" } },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("SETTINGS_INVALID_LEGAL");
  });
});

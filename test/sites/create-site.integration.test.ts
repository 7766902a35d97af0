import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import {
  api,
  makeSite,
  orgMember,
  proveHosts,
  reader,
  type SiteBody,
  service,
  setSiteLimit,
  staff,
  storedRow,
  uniqueDomain,
  uniqueSlug,
} from "../support/sites-helpers";

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe("POST /v1/sites", () => {
  it("creates a site under the caller's organization (201, full record)", async () => {
    const orgId = newId();
    const slug = uniqueSlug("blog");
    const res = await api<SiteBody>("POST", "/api/v1/sites", {
      headers: orgMember(orgId),
      body: { org_id: orgId, name: "My Blog", slug },
    });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(ULID_RE);
    expect(res.body).toMatchObject({
      org_id: orgId,
      name: "My Blog",
      slug,
      primary_domain: null,
      aliases: [],
      default_language: "en",
      languages: ["en"],
      status: "active",
      status_reason: null,
      previous_status: null,
      settings: {},
      canonical_host: `${slug}.sites.localhost`,
    });
    expect(Date.parse(res.body.created_at)).not.toBeNaN();
    expect(Date.parse(res.body.updated_at)).not.toBeNaN();
    expect(Date.parse(res.body.status_changed_at ?? "")).not.toBeNaN();
    expect(await storedRow(res.body.id)).toMatchObject({ org_id: orgId, slug, status: "active" });
  });

  it("derives the slug from the name when absent", async () => {
    const orgId = newId();
    const suffix = newId().slice(-6);
    const res = await api<SiteBody>("POST", "/api/v1/sites", {
      headers: orgMember(orgId),
      body: { org_id: orgId, name: `Café Ñandú ${suffix}!` },
    });
    expect(res.status).toBe(201);
    expect(res.body.slug).toBe(`cafe-nandu-${suffix.toLowerCase()}`);
  });

  it("a name that yields no slug and no slug given is 400", async () => {
    const orgId = newId();
    const res = await api("POST", "/api/v1/sites", {
      headers: orgMember(orgId),
      body: { org_id: orgId, name: "!!!" },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("BAD_REQUEST");
  });

  it("the primary domain becomes the canonical host once proved (the platform host until then)", async () => {
    const domain = uniqueDomain();
    const { site, owner } = await makeSite({
      primary_domain: domain.toUpperCase(),
      default_language: "pt-BR",
    });
    expect(site.primary_domain).toBe(domain);
    expect(site.canonical_host).toBe(`${site.slug}.sites.localhost`);
    await proveHosts(owner, domain);
    const proved = await api<SiteBody>("GET", `/api/v1/sites/${site.id}`, { headers: owner });
    expect(proved.body.canonical_host).toBe(domain);
    expect(site.default_language).toBe("pt-BR");
    expect(site.languages).toEqual(["pt-BR"]);
  });

  it("accepts a UUID org_id (normalized to lower case)", async () => {
    const orgId = crypto.randomUUID();
    const res = await api<SiteBody>("POST", "/api/v1/sites", {
      headers: orgMember(orgId.toUpperCase()),
      body: { org_id: orgId.toUpperCase(), name: "UUID org", slug: uniqueSlug() },
    });
    expect(res.status).toBe(201);
    expect(res.body.org_id).toBe(orgId);
  });

  it("accepts a valid settings document and stores it", async () => {
    const { site } = await makeSite({ settings: { customization: { layout: { radius: 8 } } } });
    expect(site.settings).toEqual({ customization: { layout: { radius: 8 } } });
  });

  it("refuses invalid settings with the validator's code and stores nothing", async () => {
    const orgId = newId();
    const slug = uniqueSlug();
    const res = await api("POST", "/api/v1/sites", {
      headers: orgMember(orgId),
      body: { org_id: orgId, name: "x", slug, settings: { customization: { layout: { radius: 65 } } } },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("CUSTOMIZATION_LAYOUT_OUT_OF_RANGE");
    const row = await api("GET", `/api/v1/sites/by-host?host=${slug}.sites.localhost`);
    expect(row.status).toBe(404);
  });

  describe("400 on invalid input", () => {
    const orgId = newId();
    const cases: [string, unknown][] = [
      ["org_id not an id", { org_id: "org-1", name: "x" }],
      ["org_id missing", { name: "x" }],
      ["name missing", { org_id: orgId }],
      ["name empty", { org_id: orgId, name: "" }],
      ["slug with upper case", { org_id: orgId, name: "x", slug: "Bad" }],
      ["slug with a dot", { org_id: orgId, name: "x", slug: "a.b" }],
      ["slug ending in hyphen", { org_id: orgId, name: "x", slug: "ab-" }],
      ["slug of 64 characters", { org_id: orgId, name: "x", slug: "a".repeat(64) }],
      ["domain with scheme", { org_id: orgId, name: "x", primary_domain: "https://a.example.com" }],
      ["domain with port", { org_id: orgId, name: "x", primary_domain: "a.example.com:8080" }],
      ["single-label domain", { org_id: orgId, name: "x", primary_domain: "localhost" }],
      ["IP address", { org_id: orgId, name: "x", primary_domain: "10.0.0.1" }],
      ["platform host as domain", { org_id: orgId, name: "x", primary_domain: "other.sites.localhost" }],
      ["bad language", { org_id: orgId, name: "x", default_language: "english!" }],
      ["unknown field (mass assignment)", { org_id: orgId, name: "x", status: "archived" }],
      ["array body", [1]],
    ];
    for (const [label, body] of cases) {
      it(label, async () => {
        const res = await api("POST", "/api/v1/sites", { headers: orgMember(orgId), body });
        expect(res.status).toBe(400);
        expect(res.contentType).toContain("application/problem+json");
        expect(res.body.code).toBe("BAD_REQUEST");
      });
    }

    it("malformed JSON", async () => {
      const res = await api("POST", "/api/v1/sites", { headers: orgMember(orgId), rawBody: "{not json" });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("BAD_REQUEST");
    });
  });

  describe("403 FORBIDDEN: org_id must be among the edge-validated memberships", () => {
    it("another organization's id is refused and nothing is created", async () => {
      const mine = newId();
      const theirs = newId();
      const slug = uniqueSlug();
      const res = await api("POST", "/api/v1/sites", {
        headers: orgMember(mine),
        body: { org_id: theirs, name: "x", slug },
      });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
      expect((await api("GET", `/api/v1/sites/by-host?host=${slug}.sites.localhost`)).status).toBe(404);
    });

    it("an empty membership list is refused", async () => {
      const res = await api("POST", "/api/v1/sites", {
        headers: staff([]),
        body: { org_id: newId(), name: "x", slug: uniqueSlug() },
      });
      expect(res.status).toBe(403);
    });

    it("a site membership is not an organization membership", async () => {
      const { site, orgId } = await makeSite();
      const res = await api("POST", "/api/v1/sites", {
        headers: staff([], [site.id]),
        body: { org_id: orgId, name: "x", slug: uniqueSlug() },
      });
      expect(res.status).toBe(403);
    });

    it("a reader session is refused even with the org in its header", async () => {
      const orgId = newId();
      const res = await api("POST", "/api/v1/sites", {
        headers: reader(orgId),
        body: { org_id: orgId, name: "x", slug: uniqueSlug() },
      });
      expect(res.status).toBe(403);
    });

    it("a malformed membership header grants nothing", async () => {
      const orgId = newId();
      const res = await api("POST", "/api/v1/sites", {
        headers: { ...orgMember(orgId), "x-org-memberships": "{not json" },
        body: { org_id: orgId, name: "x", slug: uniqueSlug() },
      });
      expect(res.status).toBe(403);
    });

    it("a service-to-service caller without the header passes", async () => {
      const orgId = newId();
      const res = await api<SiteBody>("POST", "/api/v1/sites", {
        headers: service,
        body: { org_id: orgId, name: "x", slug: uniqueSlug() },
      });
      expect(res.status).toBe(201);
      expect(res.body.org_id).toBe(orgId);
    });

    it("a user request that lacks the header is not a service caller: refused", async () => {
      const orgId = newId();
      const res = await api("POST", "/api/v1/sites", {
        headers: { "x-user-id": newId(), "x-session-kind": "staff" },
        body: { org_id: orgId, name: "x", slug: uniqueSlug() },
      });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    });
  });

  describe("409 conflicts", () => {
    it("SLUG_TAKEN when the slug exists (also in another organization)", async () => {
      const { site } = await makeSite();
      const other = newId();
      const res = await api("POST", "/api/v1/sites", {
        headers: orgMember(other),
        body: { org_id: other, name: "x", slug: site.slug },
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("SLUG_TAKEN");
    });

    it("DOMAIN_TAKEN when the primary domain is another site's primary domain", async () => {
      const domain = uniqueDomain();
      await makeSite({ primary_domain: domain });
      const other = newId();
      const res = await api("POST", "/api/v1/sites", {
        headers: orgMember(other),
        body: { org_id: other, name: "x", slug: uniqueSlug(), primary_domain: domain },
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("DOMAIN_TAKEN");
    });

    it("DOMAIN_TAKEN when the primary domain is another site's alias", async () => {
      const alias = uniqueDomain("alias");
      await makeSite({ primary_domain: uniqueDomain(), aliases: [alias] });
      const res = await api("POST", "/api/v1/sites", {
        headers: service,
        body: { org_id: newId(), name: "x", slug: uniqueSlug(), primary_domain: alias },
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("DOMAIN_TAKEN");
    });

    it("a refused create leaves no half-written site (slug stays free)", async () => {
      const domain = uniqueDomain();
      await makeSite({ primary_domain: domain });
      const slug = uniqueSlug();
      const refused = await api("POST", "/api/v1/sites", {
        headers: service,
        body: { org_id: newId(), name: "x", slug, primary_domain: domain },
      });
      expect(refused.status).toBe(409);
      const again = await api("POST", "/api/v1/sites", {
        headers: service,
        body: { org_id: newId(), name: "x", slug },
      });
      expect(again.status).toBe(201);
    });

    it("concurrent creates with one slug: exactly one wins", async () => {
      const slug = uniqueSlug("race");
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          api("POST", "/api/v1/sites", { headers: service, body: { org_id: newId(), name: "x", slug } }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409 && r.body.code === "SLUG_TAKEN")).toHaveLength(7);
    });

    it("concurrent creates with one domain: exactly one wins", async () => {
      const domain = uniqueDomain("race");
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          api("POST", "/api/v1/sites", {
            headers: service,
            body: { org_id: newId(), name: "x", slug: uniqueSlug(), primary_domain: domain },
          }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409 && r.body.code === "DOMAIN_TAKEN")).toHaveLength(7);
    });
  });

  describe("409 SITE_LIMIT_REACHED: the organization's plan", () => {
    it("default plan: DEFAULT_SITE_LIMIT (10) sites fit, the 11th is refused", async () => {
      const orgId = newId();
      for (let i = 0; i < 10; i++) await makeSite({}, orgId);
      const res = await api("POST", "/api/v1/sites", {
        headers: orgMember(orgId),
        body: { org_id: orgId, name: "x", slug: uniqueSlug() },
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("SITE_LIMIT_REACHED");
    });

    it("a stored plan limit applies: below and at the limit pass, above is refused", async () => {
      const orgId = newId();
      await setSiteLimit(orgId, 2);
      await makeSite({}, orgId);
      await makeSite({}, orgId);
      const res = await api("POST", "/api/v1/sites", {
        headers: orgMember(orgId),
        body: { org_id: orgId, name: "x", slug: uniqueSlug() },
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("SITE_LIMIT_REACHED");
    });

    it("a plan of 0 refuses the first site", async () => {
      const orgId = newId();
      await setSiteLimit(orgId, 0);
      const res = await api("POST", "/api/v1/sites", {
        headers: orgMember(orgId),
        body: { org_id: orgId, name: "x", slug: uniqueSlug() },
      });
      expect(res.body.code).toBe("SITE_LIMIT_REACHED");
    });

    it("a soft-deleted site frees its licence", async () => {
      const orgId = newId();
      await setSiteLimit(orgId, 1);
      const { site, owner } = await makeSite({}, orgId);
      expect((await api("DELETE", `/api/v1/sites/${site.id}`, { headers: owner })).status).toBe(204);
      await makeSite({}, orgId);
    });

    it("other organizations' sites do not count", async () => {
      const orgId = newId();
      await setSiteLimit(orgId, 1);
      await makeSite({}, newId());
      await makeSite({}, orgId);
    });

    it("concurrent creates never exceed the limit (3 of 12 win)", async () => {
      const orgId = newId();
      await setSiteLimit(orgId, 3);
      const results = await Promise.all(
        Array.from({ length: 12 }, () =>
          api("POST", "/api/v1/sites", {
            headers: orgMember(orgId),
            body: { org_id: orgId, name: "x", slug: uniqueSlug() },
          }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(3);
      expect(results.filter((r) => r.status === 409 && r.body.code === "SITE_LIMIT_REACHED")).toHaveLength(9);
    });
  });
});

import { describe, expect, it } from "vitest";
import type { EdgeIdentity } from "../../src/lib/edge";
import { newId } from "../../src/lib/ids";
import { slugFromName } from "../../src/lib/slug";
import {
  isPlatformHost,
  normalizeHost,
  normalizeRequestHost,
  slugOfPlatformHost,
} from "../../src/sites/health/domains";
import { isServiceCaller, mayCreateIn } from "../../src/sites/site/access";
import { canAccessSite } from "../../src/sites/site/permissions";
import { readSettings } from "../../src/sites/site/record";
import { parseBatchIds } from "../../src/sites/site/service";

const nobody: EdgeIdentity = {
  userId: "u",
  sessionId: null,
  orgMemberships: [],
  siteMemberships: [],
  operator: null,
  sessionKind: "staff",
  verified: true,
};

describe("slugFromName", () => {
  it("folds accents, lowers case, joins runs with one hyphen", () => {
    expect(slugFromName("  Café  Ñandú -- Blog! ")).toBe("cafe-nandu-blog");
  });
  it("caps at 63 characters without a trailing hyphen", () => {
    const slug = slugFromName(`${"a".repeat(62)} b`);
    expect(slug.length).toBeLessThanOrEqual(63);
    expect(slug.endsWith("-")).toBe(false);
  });
  it("yields an empty string when nothing is left", () => {
    expect(slugFromName("!!!")).toBe("");
  });
});

describe("host rules", () => {
  it("normalizes case and a trailing dot", () => {
    expect(normalizeHost("WWW.Example.COM.")).toBe("www.example.com");
  });
  it("refuses schemes, ports, paths, IPs, single labels, underscores", () => {
    for (const bad of [
      "http://a.com",
      "a.com:80",
      "a.com/x",
      "10.0.0.1",
      "localhost",
      "a_b.com",
      "-a.com",
      "",
    ]) {
      expect(normalizeHost(bad), bad).toBeNull();
    }
  });
  it("request hosts may carry a port", () => {
    expect(normalizeRequestHost("A.example.com:8443")).toBe("a.example.com");
  });
  it("platform hosts", () => {
    expect(slugOfPlatformHost("blog.sites.localhost", "sites.localhost")).toBe("blog");
    expect(slugOfPlatformHost("a.b.sites.localhost", "sites.localhost")).toBeNull();
    expect(slugOfPlatformHost("blog.example.com", "sites.localhost")).toBeNull();
    expect(isPlatformHost("sites.localhost", "sites.localhost")).toBe(true);
    expect(isPlatformHost("x.sites.localhost", "sites.localhost")).toBe(true);
    expect(isPlatformHost("evilsites.localhost", "sites.localhost")).toBe(false);
  });
});

describe("parseBatchIds", () => {
  it("dedupes and upper-cases", () => {
    const id = newId();
    expect(parseBatchIds(`${id.toLowerCase()},${id}`)).toEqual([id]);
  });
  it("200 pass, 201 refused", () => {
    expect(parseBatchIds(Array.from({ length: 200 }, () => newId()).join(","))).toHaveLength(200);
    expect(() => parseBatchIds(Array.from({ length: 201 }, () => newId()).join(","))).toThrow();
  });
});

describe("access rules", () => {
  const site = { id: newId(), org_id: newId() };
  it("service callers carry no edge header at all, and the edge secret vouches for them", () => {
    const noHeaders = {
      userId: null,
      sessionId: null,
      orgMemberships: null,
      siteMemberships: null,
      operator: null,
      sessionKind: null,
    };
    expect(isServiceCaller({ ...noHeaders, verified: true })).toBe(true);
    expect(isServiceCaller(nobody)).toBe(false);
    // Without the signature a request has no edge headers left: anonymous, never a service caller.
    expect(isServiceCaller({ ...noHeaders, verified: false })).toBe(false);
    expect(mayCreateIn({ ...noHeaders, verified: false }, site.org_id)).toBe(false);
  });
  it("site membership, owner-org membership or a share grants access; nothing else does", () => {
    expect(canAccessSite(nobody, site)).toBe(false);
    expect(
      canAccessSite(
        { ...nobody, siteMemberships: [{ site_id: site.id, role: "site_author", permissions: [] }] },
        site,
      ),
    ).toBe(true);
    expect(
      canAccessSite(
        { ...nobody, orgMemberships: [{ org_id: site.org_id, role: "org_member", permissions: [] }] },
        site,
      ),
    ).toBe(true);
    const partner = newId();
    const partnerMember = {
      ...nobody,
      orgMemberships: [{ org_id: partner, role: "org_member", permissions: [] }],
    };
    expect(canAccessSite(partnerMember, site)).toBe(false);
    expect(canAccessSite(partnerMember, site, [{ org_id: partner, role: "site_editor" }])).toBe(true);
  });
  it("a reader never passes", () => {
    const readerWithEverything: EdgeIdentity = {
      ...nobody,
      sessionKind: "reader",
      orgMemberships: [{ org_id: site.org_id, role: "org_owner", permissions: [], owner: true }],
      siteMemberships: [{ site_id: site.id, role: "site_owner", permissions: [], owner: true }],
    };
    expect(canAccessSite(readerWithEverything, site)).toBe(false);
    expect(mayCreateIn(readerWithEverything, site.org_id)).toBe(false);
  });
  it("create: header absent passes, present must contain the org", () => {
    const serviceCaller = {
      ...nobody,
      userId: null,
      orgMemberships: null,
      siteMemberships: null,
      sessionKind: null,
    };
    expect(mayCreateIn(serviceCaller, site.org_id)).toBe(true);
    expect(mayCreateIn(nobody, site.org_id)).toBe(false);
    // A user (or session) without the header is not a service caller: fail closed.
    const userWithoutHeader = { ...nobody, orgMemberships: null, siteMemberships: null };
    expect(mayCreateIn({ ...userWithoutHeader, userId: "u1", sessionKind: null }, site.org_id)).toBe(false);
    expect(mayCreateIn({ ...userWithoutHeader, userId: null, sessionKind: "staff" }, site.org_id)).toBe(
      false,
    );
  });
});

describe("readSettings", () => {
  it("an object is readable; anything else is {} + unreadable", () => {
    expect(readSettings('{"a":1}')).toEqual({ settings: { a: 1 }, unreadable: false });
    for (const raw of ["[]", "1", "null", "x", '"s"']) {
      expect(readSettings(raw)).toEqual({ settings: {}, unreadable: true });
    }
  });
});

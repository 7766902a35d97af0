import { describe, expect, it } from "vitest";
import { ContentErrors } from "../../src/content/errors";
import { GatewayErrors } from "../../src/gateway/errors";
import * as identity from "../../src/identity/errors";
import { CommonErrors, type ErrorEntry } from "../../src/lib/problem";
import * as sites from "../../src/sites/errors";
import { readSpecErrors, specStatusesOf } from "./spec-errors";

type Catalogue = Record<string, ErrorEntry>;
const pairs = (catalogue: Catalogue) =>
  Object.values(catalogue)
    .map((e) => `${e.code} ${e.status}`)
    .sort();
const specPairs = (codes: Map<string, Set<number>>) =>
  [...codes].flatMap(([code, statuses]) => [...statuses].map((s) => `${code} ${s}`)).sort();
/** Statuses the shared app factory answers by itself (unparseable input, unknown route, body cap, redacted 500). */
const commonStatuses = new Set(Object.values(CommonErrors).map((e) => e.status));

function expectCommonErrors(catalogue: Catalogue) {
  for (const [name, entry] of Object.entries(CommonErrors)) expect(catalogue[name]).toEqual(entry);
}

function expectOneStatusPerCode(catalogue: Catalogue, allowedTwice: string[] = []) {
  const statuses = new Map<string, Set<number>>();
  for (const e of Object.values(catalogue))
    statuses.set(e.code, new Set([...(statuses.get(e.code) ?? []), e.status]));
  const twice = [...statuses].filter(([, s]) => s.size > 1).map(([code]) => code);
  expect(twice.sort()).toEqual(allowedTwice.sort());
}

describe("identity error catalogue", () => {
  const spec = readSpecErrors("identity");

  it("holds exactly the spec's Errors table, code by code and status by status", () => {
    expect(pairs(identity.specified)).toEqual(specPairs(spec.codes));
  });

  it("gives EMAIL_NOT_VERIFIED its two statuses as two explicit entries, and no other code two", () => {
    expect(identity.IdentityErrors.EMAIL_NOT_VERIFIED_AT_LOGIN).toMatchObject({
      code: "EMAIL_NOT_VERIFIED",
      status: 403,
    });
    expect(identity.IdentityErrors.EMAIL_NOT_VERIFIED_FOR_PRIMARY).toMatchObject({
      code: "EMAIL_NOT_VERIFIED",
      status: 409,
    });
    expectOneStatusPerCode(identity.IdentityErrors, ["EMAIL_NOT_VERIFIED"]);
  });

  it("adds beyond the spec only codes the spec does not name, on statuses it lists", () => {
    for (const e of Object.values(identity.beyondSpec)) {
      expect(spec.codes.has(e.code), e.code).toBe(false);
      expect(spec.statuses.has(e.status) || commonStatuses.has(e.status), `${e.code} ${e.status}`).toBe(true);
    }
    expectCommonErrors(identity.IdentityErrors);
  });

  it("names every code the operations mention", () => {
    for (const [, code] of spec.text.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g)) {
      if (code === "X_STEP_UP_CODE") continue;
      expect(
        Object.values(identity.IdentityErrors).some((e) => e.code === code),
        code,
      ).toBe(true);
    }
  });
});

describe("content error catalogue", () => {
  const spec = readSpecErrors("content");

  it("answers only statuses of the spec's Errors table (codes are ours: the spec shows none), and 412 to If-Match", () => {
    expect(spec.codes.size).toBe(0);
    // If-Match on a post's revision is beyond the spec (issue 11); a failed precondition is 412 by RFC 9110.
    const beyond = new Set(["PRECONDITION_FAILED 412"]);
    for (const e of Object.values(ContentErrors)) {
      const allowed =
        spec.statuses.has(e.status) || commonStatuses.has(e.status) || beyond.has(`${e.code} ${e.status}`);
      expect(allowed, `${e.code} ${e.status}`).toBe(true);
    }
  });

  it("has a code for every error status of the table but the readiness probe's 503 (a JSON probe body)", () => {
    const covered = new Set(Object.values(ContentErrors).map((e) => e.status));
    for (const status of spec.statuses)
      if (status !== 503) expect(covered.has(status as never), String(status)).toBe(true);
  });

  it("gives every code one status and includes the shared factory's errors", () => {
    expectOneStatusPerCode(ContentErrors);
    expectCommonErrors(ContentErrors);
  });
});

describe("sites error catalogue", () => {
  const spec = readSpecErrors("sites");
  // The Endpoints name `BUILDER_` beside `CUSTOMIZATION_` among the settings validator's prefixes (apply,
  // platform themes: "same codes; prefixes ..."; its codes "not shown"), so it is a 400 family like the table's.
  spec.families.set("BUILDER_", 400);
  const catalogue: Catalogue = sites.SitesErrors;

  it("holds every code of the spec's Errors table with its status", () => {
    for (const pair of specPairs(spec.codes)) expect(pairs(catalogue)).toContain(pair);
  });

  it("names every validator, theme and legal code the operations mention, with the status of its row or family", () => {
    for (const [, code] of spec.text.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g)) {
      const statuses = specStatusesOf(spec, code!);
      if (!statuses) continue;
      const entry = Object.values(catalogue).find((e) => e.code === code);
      expect(entry, code).toBeDefined();
      expect(statuses.has(entry!.status), code).toBe(true);
    }
  });

  it("keeps specified entries within the spec: an exact code or a family of the table, with its status", () => {
    for (const e of [...Object.values(sites.specified), ...Object.values(sites.settingsCodes)]) {
      const statuses = specStatusesOf(spec, e.code);
      expect(statuses, e.code).toBeDefined();
      expect(statuses!.has(e.status), e.code).toBe(true);
    }
  });

  it("settings validator codes are all 400; beyond-spec codes are on statuses the spec lists", () => {
    for (const e of Object.values(sites.settingsCodes)) expect(e.status, e.code).toBe(400);
    for (const e of Object.values(sites.beyondSpec)) {
      expect(specStatusesOf(spec, e.code), e.code).toBeUndefined();
      expect(spec.statuses.has(e.status) || commonStatuses.has(e.status), e.code).toBe(true);
    }
    expectOneStatusPerCode(catalogue);
    expectCommonErrors(catalogue);
  });
});

describe("gateway error catalogue", () => {
  it("includes the shared factory's errors and gives every code one status", () => {
    expectCommonErrors(GatewayErrors);
    expectOneStatusPerCode(GatewayErrors);
  });
});

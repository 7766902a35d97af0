/**
 * The spec is executable against the code: every operation of the three specs is in its service's
 * OpenAPI document or listed, with a reason and an issue, in docs/not-built.md; the list cannot go
 * stale; and a service that lacks operations does not claim the spec's reference version.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { testSpecs } from "../support/corpora-binding";
import {
  BEYOND_SPEC_OPERATIONS,
  gatewayPath,
  identityReferencedOperations,
  identityStepUpOperations,
  normalizePath,
  operationKey,
  parseNotBuilt,
  referenceVersion,
  SERVICES,
  type ServiceName,
  type SpecOperation,
  STEP_UP_EXTENSIONS,
  specOperations,
  statedOperationCount,
} from "../support/spec-operations";

const texts = testSpecs();
const operations = specOperations(texts);
const notBuilt = parseNotBuilt(texts.notBuilt);
const services: Record<ServiceName, Fetcher> = {
  identity: env.IDENTITY,
  content: env.CONTENT,
  sites: env.SITES,
};

interface OpenApiDocument {
  info: { version: string; description?: string };
  paths: Record<string, Record<string, unknown>>;
}

async function documented(
  service: ServiceName,
): Promise<{ info: OpenApiDocument["info"]; keys: Set<string> }> {
  const res = await services[service].fetch("http://x/openapi.json");
  expect(res.status).toBe(200);
  const doc = (await res.json()) as OpenApiDocument;
  const keys = new Set(
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => operationKey({ method, path })),
    ),
  );
  return { info: doc.info, keys };
}

const show = (op: { method: string; path: string }) => `${op.method} ${op.path}`;

function listedFor(service: ServiceName) {
  return notBuilt
    .filter((e) => e.service === service)
    .map((e) => ({ ...e, path: gatewayPath(service, e.specPath) }));
}

describe("the specs' operations, read from their Endpoints sections", () => {
  for (const service of SERVICES) {
    it(`${service}: as many operations as the Versioning section states, none twice`, () => {
      const ops = operations[service];
      expect(ops.length).toBe(statedOperationCount(texts[service]));
      expect(new Set(ops.map(operationKey)).size).toBe(ops.length);
    });
  }
});

describe("every spec operation is built or listed in docs/not-built.md", () => {
  for (const service of SERVICES) {
    it(`${service}: each spec operation is in the OpenAPI document, or listed as not built with a reason`, async () => {
      const { keys } = await documented(service);
      const listed = new Set(listedFor(service).map(operationKey));
      const unaccounted = operations[service].filter(
        (op) => !keys.has(operationKey(op)) && !listed.has(operationKey(op)),
      );
      expect(
        unaccounted.map(show),
        "spec operations neither in the OpenAPI document nor in docs/not-built.md",
      ).toEqual([]);
    });

    it(`${service}: each operation listed as not built is a spec operation and really is absent`, async () => {
      const { keys } = await documented(service);
      const specKeys = new Set(operations[service].map(operationKey));
      const listed = listedFor(service);
      expect(
        listed.filter((e) => !specKeys.has(operationKey(e))).map(show),
        "listed in docs/not-built.md but not an operation of the spec",
      ).toEqual([]);
      expect(
        listed.filter((e) => keys.has(operationKey(e))).map(show),
        "listed in docs/not-built.md but built (remove the row)",
      ).toEqual([]);
      expect(new Set(listed.map(operationKey)).size, "a row listed twice").toBe(listed.length);
    });

    it(`${service}: the OpenAPI document claims the spec's reference version only when nothing is missing`, async () => {
      const { info } = await documented(service);
      const version = referenceVersion(texts[service]);
      if (listedFor(service).length === 0) {
        expect(info.version).toBe(version);
      } else {
        expect(info.version).not.toBe(version);
        expect(info.version).toMatch(/^\d+\.\d+\.\d+-[0-9A-Za-z.-]+$/);
        expect(info.description).toContain("docs/not-built.md");
      }
    });

    it(`${service}: each operation listed as not built answers 404`, async () => {
      for (const op of listedFor(service)) {
        const path = op.path.replace(/\{[^}]+\}/g, () => newId());
        const res = await services[service].fetch(`http://x${path}`, { method: op.method });
        expect(res.status, show(op)).toBe(404);
      }
    });
  }

  it("identity: the operations the spec references outside its 49 are built, or named in docs/not-built.md", async () => {
    const { keys } = await documented("identity");
    const referenced: SpecOperation[] = identityReferencedOperations(texts.identity);
    const absent = referenced.filter((op) => !keys.has(operationKey(op)));
    const unnamed = absent.filter((op) => !texts.notBuilt.includes(`\`${op.method} ${op.specPath}\``));
    expect(unnamed.map(show)).toEqual([]);
    const built = referenced.filter((op) => keys.has(operationKey(op)));
    const namedButBuilt = built.filter((op) => texts.notBuilt.includes(`\`${op.method} ${op.specPath}\``));
    expect(namedButBuilt.map(show), "named in docs/not-built.md but built").toEqual([]);
  });
});

describe("identity's step-up operations: the spec's list (Authentication rule 3) and its declared extensions", () => {
  type Responses = Record<string, { description?: string }>;
  async function responsesByOperation() {
    const res = await services.identity.fetch("http://x/openapi.json");
    const doc = (await res.json()) as { paths: Record<string, Record<string, { responses?: Responses }>> };
    const out = new Map<string, Responses>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item))
        out.set(operationKey({ method, path }), op.responses ?? {});
    }
    return out;
  }
  const specList = identityStepUpOperations(texts.identity);
  const extensions = STEP_UP_EXTENSIONS.map((x) => ({
    method: x.method,
    path: gatewayPath("identity", x.specPath),
  }));

  it("the rule names six operations; each extension is built, with its issue, and not already on the list", async () => {
    expect(specList.map(show)).toHaveLength(6);
    const { keys } = await documented("identity");
    for (const x of extensions) {
      expect(keys.has(operationKey(x)), show(x)).toBe(true);
      expect(specList.map(operationKey)).not.toContain(operationKey(x));
    }
    for (const x of STEP_UP_EXTENSIONS) expect(x.issue).toMatch(/^#\d+$/);
  });

  it("each one documents 428 STEP_UP_REQUIRED, 401 CODE_INVALID and 503 STEP_UP_UNAVAILABLE", async () => {
    const documentedResponses = await responsesByOperation();
    for (const op of [...specList, ...extensions]) {
      const responses = documentedResponses.get(operationKey(op));
      expect(responses, show(op)).toBeDefined();
      expect(responses?.["428"]?.description, show(op)).toContain("STEP_UP_REQUIRED");
      expect(responses?.["401"]?.description, show(op)).toContain("CODE_INVALID");
      expect(responses?.["503"]?.description, show(op)).toContain("STEP_UP_UNAVAILABLE");
    }
  });

  it("no other operation answers STEP_UP_REQUIRED: the list is closed but for the declared extensions", async () => {
    const allowed = new Set([...specList, ...extensions].map(operationKey));
    const stepUp = [...(await responsesByOperation())]
      .filter(([, responses]) => responses["428"]?.description?.includes("STEP_UP_REQUIRED"))
      .map(([key]) => key);
    expect(stepUp.filter((key) => !allowed.has(key))).toEqual([]);
  });
});

describe("docs/not-built.md", () => {
  it("gives every row an issue and a reason, and names paths as the spec writes them", () => {
    for (const entry of notBuilt) {
      expect(entry.issue).toMatch(/^#\d+$/);
      expect(entry.reason.length).toBeGreaterThan(10);
      expect(normalizePath(entry.specPath)).not.toMatch(/^\/api\//);
    }
  });
});

describe("operations beyond the specs, declared with their issue", () => {
  for (const op of BEYOND_SPEC_OPERATIONS) {
    it(`${op.service}: ${op.method} ${op.path} (${op.issue}) is documented and is no spec operation`, async () => {
      const { keys } = await documented(op.service);
      expect(keys.has(operationKey(op))).toBe(true);
      expect(operations[op.service].map(operationKey)).not.toContain(operationKey(op));
      expect(op.issue).toMatch(/^#\d+$/);
    });
  }
});

/**
 * One error language (issue 33): the same mistake gets the same status, code and headers on every service.
 * Swept over the three OpenAPI documents, through the gateway worker:
 * - a Bearer operation (identity's `bearerAuth`, the dashboard routes of sites and content) and an API-key
 *   operation (content's `/v1/*`): no credential is 401 `UNAUTHENTICATED` with `WWW-Authenticate: Bearer
 *   realm="site-platform"` (RFC 6750 §3: no `error` when none was presented); a credential that does not
 *   verify adds `error="invalid_token"`; an access token that verifies but expired is 401 `TOKEN_EXPIRED`
 *   with `error="invalid_token"` and an `error_description`, so a client knows to refresh;
 * - an operation whose body is JSON only: `text/plain` is 415 `UNSUPPORTED_MEDIA_TYPE`, and malformed JSON is
 *   400 `BAD_REQUEST` with one detail, whoever sends it;
 * - a method a documented path does not serve is 405 `METHOD_NOT_ALLOWED` with `Allow` naming the methods it
 *   does serve.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { routeFor } from "../../src/gateway/routes";
import { badTokens, concretePath } from "../support/bearer-sweep";
import { BASE, call, sweepTenant, verifiedUser } from "../support/platform";
import { OAUTH_PROTOCOL_OPERATIONS } from "../support/spec-operations";

const e = env as unknown as { JWT_SIGNING_KEYS: string };

type Method = "get" | "post" | "put" | "patch" | "delete";
const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

interface DocOperation {
  security?: Record<string, string[]>[];
  requestBody?: { content?: Record<string, unknown> };
}
interface Doc {
  paths: Record<string, Partial<Record<Method, DocOperation>>>;
}

interface Op {
  service: string;
  method: Method;
  path: string;
  auth: "session" | "key" | "none";
  jsonOnly: boolean;
}

async function operations(): Promise<{
  ops: Op[];
  paths: { service: string; path: string; methods: Method[] }[];
}> {
  const ops: Op[] = [];
  const paths: { service: string; path: string; methods: Method[] }[] = [];
  for (const service of ["identity", "sites", "content"]) {
    const res = await call<Doc>("GET", `/docs/${service}/openapi.json`);
    expect(res.status).toBe(200);
    for (const [path, item] of Object.entries(res.body.paths)) {
      const methods = METHODS.filter((m) => item[m]);
      paths.push({ service, path, methods });
      for (const method of methods) {
        const op = item[method]!;
        const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
        const session =
          schemes.includes("bearerAuth") &&
          (service === "identity" || routeFor(path)?.requiresSession === true);
        const key = schemes.includes("apiKey");
        const types = Object.keys(op.requestBody?.content ?? {});
        ops.push({
          service,
          method,
          path,
          auth: session ? "session" : key ? "key" : "none",
          jsonOnly: types.length === 1 && types[0] === "application/json",
        });
      }
    }
  }
  return { ops, paths };
}

async function send(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string } = {},
) {
  const res = await exports.default.fetch(`${BASE}${path}`, {
    method: method.toUpperCase(),
    headers: { "cf-connecting-ip": "203.0.113.77", ...init.headers },
    body: init.body,
  });
  const text = await res.text();
  let body: { code?: string; detail?: string; details?: Record<string, unknown> } = {};
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body };
}

const label = (op: { method: string; path: string }) => `${op.method.toUpperCase()} ${op.path}`;

describe("one error language across the three services", () => {
  it("refuses a missing, an invalid and an expired credential alike on every operation that needs one", async () => {
    const { ops } = await operations();
    const owner = await verifiedUser();
    const other = await verifiedUser();
    const tokens = await badTokens(other.access_token, owner.access_token, e.JWT_SIGNING_KEYS);
    const forged = tokens.find((t) => t.kind === "forged-signature")!.token!;
    const expired = tokens.find((t) => t.kind === "expired")!.token!;
    const failures: string[] = [];
    const expect401 = (
      op: Op,
      what: string,
      res: Awaited<ReturnType<typeof send>>,
      code: string,
      challenge: RegExp,
    ) => {
      const header = res.headers.get("www-authenticate") ?? "";
      if (res.status !== 401 || res.body.code !== code || !challenge.test(header))
        failures.push(`${label(op)} ${what}: ${res.status} ${res.body.code} [${header}]`);
    };
    const sessionOps = ops.filter((op) => op.auth === "session");
    const keyOps = ops.filter((op) => op.auth === "key");
    expect(sessionOps.length).toBeGreaterThan(60);
    expect(keyOps.length).toBeGreaterThan(20);
    for (const op of [...sessionOps, ...keyOps]) {
      const path = concretePath(op.path);
      const body = op.method === "get" || op.method === "delete" ? undefined : "{}";
      const headers: Record<string, string> = body ? { "content-type": "application/json" } : {};
      const none = await send(op.method, path, { headers, body });
      // The MCP endpoint's challenge adds where its resource metadata is (RFC 9728 §5.1, the MCP
      // authorization spec): the same realm, the same status, code and body.
      const challenge =
        op.path === "/v1/mcp"
          ? /^Bearer realm="site-platform", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/v1\/mcp"$/
          : /^Bearer realm="site-platform"$/;
      expect401(op, "no credential", none, "UNAUTHENTICATED", challenge);
      const invalid = op.auth === "session" ? forged : "ck_live_notarealkeynotarealkeynotarealkey00";
      const bad = await send(op.method, path, {
        headers: { ...headers, authorization: `Bearer ${invalid}` },
        body,
      });
      expect401(
        op,
        "invalid",
        bad,
        "UNAUTHENTICATED",
        /^Bearer realm="site-platform", error="invalid_token"/,
      );
      if (op.auth === "session") {
        const old = await send(op.method, path, {
          headers: { ...headers, authorization: `Bearer ${expired}` },
          body,
        });
        expect401(op, "expired", old, "TOKEN_EXPIRED", /error="invalid_token", error_description="[^"]+"/);
      }
    }
    expect(failures).toEqual([]);
  }, 240_000);

  it("answers a non-JSON body with 415 and malformed JSON with one 400, on every JSON-only operation", async () => {
    const { ops } = await operations();
    const { owner, site, key } = await sweepTenant("sweep");
    const credential = (op: Op): Record<string, string> =>
      op.auth === "session"
        ? { authorization: `Bearer ${owner.access_token}` }
        : op.auth === "key"
          ? { authorization: `Bearer ${key}` }
          : {};
    const failures: string[] = [];
    // The operator's routes refuse a caller without the capability before reading a body (403), and the
    // development host proof needs a member of the site holding the host: not the owner's plain calls.
    // The MCP endpoint answers in JSON-RPC's error language, as the MCP specification requires, and the
    // OAuth protocol endpoints in the RFCs' (OAUTH_PROTOCOL_OPERATIONS).
    const jsonOps = ops.filter(
      (op) =>
        op.jsonOnly &&
        !op.path.startsWith("/api/v1/platform/") &&
        !op.path.includes("/__dev/") &&
        op.path !== "/v1/mcp" &&
        !OAUTH_PROTOCOL_OPERATIONS.has(`${op.method.toUpperCase()} ${op.path}`),
    );
    expect(jsonOps.length).toBeGreaterThan(40);
    for (const op of jsonOps) {
      const path = op.path
        .replace(/\{site_id\}|\{siteId\}|(?<=\/sites\/)\{id\}/g, site.id)
        .replace(/\{[^}]+\}/g, () => concretePath("{x}"));
      const plain = await send(op.method, path, {
        headers: { ...credential(op), "content-type": "text/plain" },
        body: "{}",
      });
      if (plain.status !== 415 || plain.body.code !== "UNSUPPORTED_MEDIA_TYPE")
        failures.push(`${label(op)} text/plain: ${plain.status} ${plain.body.code}`);
      const broken = await send(op.method, path, {
        headers: { ...credential(op), "content-type": "application/json" },
        body: '{"title": ',
      });
      if (
        broken.status !== 400 ||
        broken.body.code !== "BAD_REQUEST" ||
        broken.body.detail !== "The body is not valid JSON."
      )
        failures.push(
          `${label(op)} malformed JSON: ${broken.status} ${broken.body.code} ${broken.body.detail}`,
        );
    }
    expect(failures).toEqual([]);
  }, 240_000);

  it("answers a method a documented path does not serve with 405 and Allow", async () => {
    const { paths } = await operations();
    // Signed in, so the gateway's session check (which comes first on the dashboard's paths) passes.
    const owner = await verifiedUser();
    const failures: string[] = [];
    // The services' own probes (/health, /ready, /metrics) are not routed by the gateway (it has its own
    // /health), and the MCP endpoint's transport answers every method itself.
    const routed = paths.filter((p) => routeFor(p.path)?.upstream === p.service && p.path !== "/v1/mcp");
    expect(routed.length).toBeGreaterThan(100);
    for (const { path, methods } of routed) {
      const unserved = METHODS.find((m) => !methods.includes(m));
      if (!unserved) continue;
      const res = await send(unserved, concretePath(path), {
        headers: { authorization: `Bearer ${owner.access_token}` },
      });
      const allow = (res.headers.get("allow") ?? "").split(/,\s*/).filter(Boolean);
      const expected = methods.map((m) => m.toUpperCase());
      if (
        res.status !== 405 ||
        res.body.code !== "METHOD_NOT_ALLOWED" ||
        !expected.every((m) => allow.includes(m))
      )
        failures.push(
          `${unserved.toUpperCase()} ${path}: ${res.status} ${res.body.code} Allow: ${allow.join(",")}`,
        );
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it("says how to repeat a request that needs a step-up: the X-Step-Up-Code header, details channel and sent_to only", async () => {
    const user = await verifiedUser();
    const res = await send("delete", "/api/v1/auth/sessions", {
      headers: { authorization: `Bearer ${user.access_token}` },
    });
    expect(res.status).toBe(428);
    const body = res.body as { code?: string; detail?: string; details?: Record<string, unknown> };
    expect(body.code).toBe("STEP_UP_REQUIRED");
    expect(body.detail).toMatch(/repeat the same request with the code in the X-Step-Up-Code header/);
    expect(Object.keys(body.details ?? {}).sort()).toEqual(["channel", "sent_to"]);
  });
});

/**
 * Spec section "Site health and DNS": the cached health of a site and the DNS check of a host; and,
 * beyond the spec, the ownership proof of a custom domain (`POST …/domains/verify`).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { readEdgeIdentity } from "../../lib/edge";
import type { SitesAppEnv } from "../core/app-env";
import { IdParam, json, jsonBody } from "../core/route-parts";
import { guardedSite } from "../site/guard";
import { SiteSchema } from "../site/record";
import { checkDomainDns } from "./dns-check";
import { verifyDomain } from "./domain-verify";
import { readHealth } from "./health";
import { devProveHost, refuseDevCaller } from "./host-proof";

const Issue = z
  .object({
    code: z.string().openapi({
      description:
        "dns_not_pointing, dns_lookup_failed, domain_unverified (pending: not served until proved), domain_proof_missing, domain_proof_lost, domain_lost, no_logo, no_favicon, no_legal_pages, nothing_published, external_images_pending, convergence_stalled, settings_unreadable",
    }),
    detail: z.string(),
    host: z.string().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("HealthIssue");

const Health = z
  .object({
    cached: z.boolean().openapi({ description: "false until the hourly sweep has checked the site" }),
    checked_at: z.string().optional(),
    issues: z.array(Issue),
    unchecked: z
      .array(z.string())
      .optional()
      .openapi({ description: "Checks the last sweep could not run (dns, content, convergence)" }),
  })
  .openapi("SiteHealth");

/** The custom host a domain proof is about. */
const HostBody = z.object({ host: z.string().max(253) }).strict();

const Proof = z
  .object({
    host: z.string(),
    txt_name: z.string().openapi({ description: "_platform-verify.<host>" }),
    txt_value: z.string().openapi({ description: "The value proving the host for this site" }),
    txt_seen: z.boolean().nullable().openapi({ description: "null when the TXT lookup failed" }),
    holder: z.enum(["this_site", "another_site", "nobody"]),
    verified: z.boolean(),
  })
  .openapi("DomainProof");

const Records = z.object({ a: z.array(z.string()), aaaa: z.array(z.string()) });

const DnsCheck = z
  .object({
    host: z.string(),
    points_to_platform: z.boolean(),
    form: z.enum(["apex_a", "apex_aaaa", "cname"]).nullable(),
    reason: z
      .enum(["nxdomain", "no_records", "cname_elsewhere", "foreign_address", "lookup_failed"])
      .nullable(),
    expected: Records.extend({ cname: z.string() }),
    records: Records.extend({ cname: z.string().nullable() }),
    ownership: Proof.nullable(),
  })
  .openapi("DnsCheck");

const healthRoute = createRoute({
  method: "get",
  path: "/api/v1/sites/{id}/health",
  summary: "The site's pending issues as the hourly sweep last found them (reads only the cache)",
  request: { params: IdParam },
  responses: {
    200: json(Health, "Cached health; cached false when never checked"),
    ...problemResponses({
      400: "id is neither ULID nor UUID",
      404: "Site missing or not the caller's",
      503: "HEALTH_UNAVAILABLE: the health cache is not wired",
    }),
  },
});

const checkDnsRoute = createRoute({
  method: "get",
  path: "/api/v1/sites/{id}/domains/check-dns",
  summary: "Whether a host points at the platform (apex A, apex AAAA, or CNAME to <slug>.<platform domain>)",
  request: { params: IdParam, query: z.object({ host: z.string().optional() }) },
  responses: {
    200: json(DnsCheck, "Verdict, published records and the ownership proof state"),
    ...problemResponses({
      400: "Invalid id, host missing or not a host name",
      404: "Site missing or not the caller's",
      500: "DNS_NOT_CONFIGURED: the fleet's addresses are not configured",
    }),
  },
});

const verifyRoute = createRoute({
  method: "post",
  path: "/api/v1/sites/{id}/domains/verify",
  summary:
    "Beyond the spec: prove a custom domain (TXT _platform-verify.<host>); a proven host moves here from an unverified holder",
  request: {
    params: IdParam,
    body: jsonBody(HostBody),
  },
  responses: {
    200: json(
      Proof.extend({ attached: z.boolean(), site: SiteSchema }).openapi("DomainVerification"),
      "Proof state after the check; attached when the host moved to this site",
    ),
    ...problemResponses({
      400: "Invalid id or body, host not a host name or under the platform domain, aliases full",
      403: "FORBIDDEN: a member whose role may not change settings",
      404: "Site missing or not the caller's",
      409: "DOMAIN_TAKEN: a verified holder keeps the host; EDIT_CONFLICT: concurrent domain edits",
    }),
  },
});

const DEV_PROVE_PATH = "/api/v1/sites/__dev/prove-host";

const devProveRoute = createRoute({
  method: "post",
  path: DEV_PROVE_PATH,
  tags: ["Development"],
  summary:
    "Development only (DEV_OUTBOX=true; 404 otherwise): mark a held custom host proved, no DNS; a member holding settings on the site",
  request: {
    body: jsonBody(HostBody),
  },
  responses: {
    200: json(
      z.object({ host: z.string(), site_id: z.string(), verified: z.literal(true) }).openapi("DevHostProof"),
      "The host is proved and served",
    ),
    ...problemResponses({
      400: "Body invalid or host not a host name",
      401: "UNAUTHENTICATED: no member's Bearer access token",
      403: "FORBIDDEN: a member of the holding site whose role may not change settings",
      404: "NOT_FOUND: not a development build, or no site the caller may see holds the host",
    }),
  },
});

export function registerDomainRoutes(app: OpenAPIHono<SitesAppEnv>) {
  // Before the body is validated: outside development the route answers like a missing one, and
  // without a member's session it is 401.
  app.use(DEV_PROVE_PATH, async (c, next) => {
    refuseDevCaller(c.env, readEdgeIdentity(c.req.raw.headers));
    return next();
  });
  app.openapi(devProveRoute, async (c) => {
    const identity = readEdgeIdentity(c.req.raw.headers);
    return c.json(await devProveHost(c.env, c.get("services"), identity, c.req.valid("json").host), 200);
  });

  app.openapi(healthRoute, async (c) => {
    const site = guardedSite(c, "read");
    return c.json(await readHealth(c.get("services"), site.id), 200);
  });

  app.openapi(checkDnsRoute, async (c) => {
    const site = guardedSite(c, "read");
    return c.json(await checkDomainDns(c.env, c.get("services"), site, c.req.valid("query").host), 200);
  });

  app.openapi(verifyRoute, async (c) => {
    const site = guardedSite(c, "settings");
    return c.json(await verifyDomain(c.env, c.get("services"), site, c.req.valid("json").host), 200);
  });
}

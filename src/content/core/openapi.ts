/**
 * What content's routes leave unsaid in the OpenAPI document (issue 23 item 4): key routes declare their
 * scheme and scopes themselves (`keyAuth`); the site administration routes under `/api/v1/sites/...` take
 * a staff Bearer through the gateway; the anonymous form routes, the media CDN stand-in and the probes are
 * public. Each operation without a tag gets its spec section's.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { DocumentRules } from "../../lib/api-docs";
import type { AppEnv } from "./bindings";

const SECTIONS: [RegExp, string][] = [
  [/^\/(health|ready|metrics)$/, "Probes"],
  [/^\/media\//, "Media"],
  [/^\/api\/v1\/sites\/[^/]+\/api-keys/, "API keys"],
  [/^\/api\/v1\/sites\/[^/]+\/webhooks/, "Webhooks"],
  [/forms/, "Forms"],
  [/^\/v1\/(posts|post-types)/, "Posts"],
  [/^\/v1\/media/, "Media"],
  [/^\/v1\/site/, "Site"],
  [/^\/v1\/(analytics|export)/, "Analytics"],
  [/^\/v1\/leads/, "Leads"],
  [/^\/v1\/import/, "Bulk"],
  [/^\/v1\/mcp/, "MCP"],
];

const ORDER = [
  "Posts",
  "SEO",
  "Media",
  "Site",
  "Analytics",
  "Leads",
  "Bulk",
  "Forms",
  "API keys",
  "Webhooks",
  "Dashboard",
  "MCP",
  "Probes",
];

export const CONTENT_DOCUMENT_RULES: DocumentRules = {
  security: (path) => (path.startsWith("/api/v1/") ? [{ bearerAuth: [] }] : []),
  tag: (path) => SECTIONS.find(([re]) => re.test(path))?.[1] ?? "Site",
  tags: ORDER.map((name) => ({ name })),
};

/** The staff scheme of the site administration routes (registered after the key schemes: "Try it" preselects the first). */
export function registerStaffSecurity(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "A staff access token from identity: `Authorization: Bearer <access_token>`, verified by the gateway (API keys, webhooks and forms of a site; the dashboard's content routes, as the signed-in person).",
  });
}

/**
 * What the sites routes leave unsaid in the OpenAPI document (issue 23 item 4): each operation's
 * security and its tag, the spec section it belongs to. Every route behind the gateway takes a staff
 * Bearer access token (the edge verifies it and sends the edge headers), the development host proof
 * too (a member's session, issue 31); `by-host` and the probes are public.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { DocumentRules } from "../../lib/api-docs";
import type { SitesAppEnv } from "./app-env";

const PUBLIC = new Set(["/health", "/ready", "/api/v1/sites/by-host"]);

const SECTIONS: [RegExp, string][] = [
  [/^\/(health|ready)$/, "Probes"],
  [/^\/api\/v1\/platform\/sites/, "Operator console: sites"],
  [/^\/api\/v1\/platform\/themes/, "Operator console: themes"],
  [/^\/api\/v1\/sites\/__dev\//, "Development"],
  [/^\/api\/v1\/sites\/\{[^}]+\}\/applets/, "Applets"],
  [/^\/api\/v1\/sites\/\{[^}]+\}\/themes/, "Themes of a site"],
  [/^\/api\/v1\/sites\/\{[^}]+\}\/legal/, "Legal pages"],
  [/^\/api\/v1\/sites\/\{[^}]+\}\/(health|domains)/, "Site health and DNS"],
];

export const SITES_DOCUMENT_RULES: DocumentRules = {
  security: (path) => (PUBLIC.has(path) ? [] : [{ bearerAuth: [] }]),
  tag: (path) => SECTIONS.find(([re]) => re.test(path))?.[1] ?? "Sites",
  tags: [
    { name: "Sites", description: "Create, list, read, update and delete sites; batch and by-host reads." },
    { name: "Applets", description: "The applets catalog and each app's state on a site." },
    { name: "Themes of a site", description: "A site's themes: create, apply, undo, delete." },
    { name: "Legal pages", description: "The legal document catalog and its generation as pages." },
    { name: "Site health and DNS", description: "Health, DNS checks and custom domain ownership proof." },
    { name: "Operator console: sites", description: "Platform operators: every site, cross-tenant." },
    { name: "Operator console: themes", description: "Platform operators: the platform's themes." },
    { name: "Probes", description: "Liveness and readiness." },
    { name: "Development", description: "Development only (never deployed)." },
  ],
};

/** The scheme every dashboard route of sites takes (through the gateway). */
export function registerSitesSecurity(app: OpenAPIHono<SitesAppEnv>) {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "A staff access token from identity (`POST /api/v1/auth/login`, `/api/v1/auth/refresh`): `Authorization: Bearer <access_token>`, verified by the gateway.",
  });
}

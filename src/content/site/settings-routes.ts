/** `GET|PATCH /v1/site/settings` and `GET|PATCH /v1/site/seo` (spec: the summary-only table). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/bindings";
import { fail } from "../errors";
import type { KeyRequirement } from "../keys/api-key";
import { keyAuth } from "../keys/middleware";
import {
  mergeStoredSettings,
  readStoredSettings,
  SITE_SEO_KEYS,
  SITE_SETTINGS_KEYS,
  SiteSeoSchema,
  SiteSettingsPatchSchema,
  SiteSettingsViewSchema,
  seoPatch,
  seoView,
  settingsPatch,
  settingsView,
} from "./settings";

/** The sites PATCH's body cap: the settings document is one D1 row. */
export const SETTINGS_BODY_MAX_BYTES = 1024 * 1024;

const limitBody = bodyLimit({
  maxSize: SETTINGS_BODY_MAX_BYTES,
  onError: () => {
    fail("PAYLOAD_TOO_LARGE", `Request body larger than ${SETTINGS_BODY_MAX_BYTES} bytes.`);
  },
});

const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** The key check, then (writes) the body cap: 401/403/429 come before 413. */
function guard(requirement: KeyRequirement) {
  const auth = keyAuth(requirement);
  return requirement.quota === "write" ? { ...auth, middleware: [...auth.middleware, limitBody] } : auth;
}

const KeyQuery = z.object({
  key: z
    .string()
    .optional()
    .openapi({ description: "pk_ key for browsers; ignored when Authorization is sent" }),
});

const readProblems = problemResponses({
  401: "Key missing or invalid (also a site deleted or archived)",
  403: "Scope missing, pk_ key where ck_ is required, or pk_ origin not allowed",
  429: "Quota",
  502: "SITES_UNAVAILABLE: the site registry did not answer",
});

const writeProblems = problemResponses({
  400: "NOTHING_EDITABLE (no allowed key), BAD_REQUEST, or the sites settings validator's code (SETTINGS_*, CUSTOMIZATION_*, …) for the merged document",
  401: "Key missing or invalid (also a site deleted or archived)",
  403: "Scope missing or pk_ key (site:code to change `advanced`, or an html or *_html key inside a free-form value)",
  409: "SETTINGS_UNREADABLE (stored document not a JSON object; nothing written) or EDIT_CONFLICT (kept changing; retry)",
  413: "PAYLOAD_TOO_LARGE: body over 1 MiB",
  422: "IMAGEM_EXTERNA_INVALIDA: a new external image refused by image ingest (with invalid_images)",
  429: "Quota",
  502: "SITES_UNAVAILABLE: the site registry did not answer",
});

const MERGE_RULES =
  "Merged by the sites service onto the stored document: the same validator, image rehosting and error codes as PATCH /api/v1/sites/{id}; nothing is stored on refusal.";

const getSiteSettingsRoute = createRoute({
  method: "get",
  path: "/v1/site/settings",
  tags: ["Site"],
  summary: "Read editable site settings",
  description: `Scope site:read, ck_ only. Only the allowlisted top-level keys (${SITE_SETTINGS_KEYS.join(", ")}) are returned; any other key of the stored document, including ones added later, is not.`,
  ...guard({ kinds: "secret", scopes: ["site:read"], quota: "read" }),
  responses: { 200: json(SiteSettingsViewSchema, "The allowlisted settings"), ...readProblems },
});

const updateSiteSettingsRoute = createRoute({
  method: "patch",
  path: "/v1/site/settings",
  tags: ["Site"],
  summary: "Update site settings (merged onto the stored document)",
  description: `Scope site:write, ck_ only. Body {"settings": {…}}: each allowlisted key sent (${SITE_SETTINGS_KEYS.join(", ")}) replaces that key's stored value whole; null removes it; org_id, status, site_id and slug (at the top or inside settings) are ignored; any other key is 400 BAD_REQUEST naming it in details.path, and nothing is stored. A body with no allowlisted key is 400 NOTHING_EDITABLE. Changing markup (\`advanced\`, output by the renderer as markup, or an \`html\` or \`*_html\` key inside a free-form value such as \`social\`) also needs scope site:code: without it, a write that would change its stored value (set, change or remove) is 403 INSUFFICIENT_SCOPE and nothing is stored; resending it unchanged passes. A key the sites settings schema does not declare inside an allowlisted value is 400 SETTINGS_UNKNOWN_KEY with its path in details. ${MERGE_RULES} Answers the allowlisted settings after the write.`,
  ...guard({ kinds: "secret", scopes: ["site:write"], quota: "write" }),
  request: {
    body: { required: true, content: { "application/json": { schema: SiteSettingsPatchSchema } } },
  },
  responses: {
    200: json(SiteSettingsViewSchema, "The allowlisted settings after the merge"),
    ...writeProblems,
  },
});

const getSiteSeoRoute = createRoute({
  method: "get",
  path: "/v1/site/seo",
  tags: ["SEO"],
  summary: "Read site-level SEO",
  description: `Scope seo:read (ck_ or pk_: these values are published in every page's head). The allowed keys of settings.seo (${SITE_SEO_KEYS.join(", ")}), null when unset.`,
  ...guard({ kinds: "any", scopes: ["seo:read"], quota: "read" }),
  request: { query: KeyQuery },
  responses: { 200: json(SiteSeoSchema, "Site-level SEO"), ...readProblems },
});

const updateSiteSeoRoute = createRoute({
  method: "patch",
  path: "/v1/site/seo",
  tags: ["SEO"],
  summary: "Update site-level SEO (merged into settings.seo)",
  description: `Scope seo:write, ck_ only. Allowed keys: ${SITE_SEO_KEYS.join(", ")}; each sent replaces that key of settings.seo, null removes it; any other key is 400 BAD_REQUEST naming it in details.path, and a body with none of them is 400 NOTHING_EDITABLE. ${MERGE_RULES}`,
  ...guard({ kinds: "secret", scopes: ["seo:write"], quota: "write" }),
  request: { body: { required: true, content: { "application/json": { schema: SiteSeoSchema } } } },
  responses: { 200: json(SiteSeoSchema, "Site-level SEO after the merge"), ...writeProblems },
});

export function registerSiteSettingsRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(getSiteSettingsRoute, async (c) => {
    const stored = await readStoredSettings(c.env, c.get("auth").siteId);
    return c.json(settingsView(stored), 200);
  });

  app.openapi(updateSiteSettingsRoute, async (c) => {
    const patch = settingsPatch(c.req.valid("json"));
    const { siteId, scopes } = c.get("auth");
    const mayEditMarkup = scopes.has("site:code");
    const stored = await mergeStoredSettings(c.env, {
      site_id: siteId,
      settings: patch,
      may_edit_markup: mayEditMarkup,
    });
    return c.json(settingsView({ settings: stored, unreadable: false }), 200);
  });

  app.openapi(getSiteSeoRoute, async (c) => {
    const stored = await readStoredSettings(c.env, c.get("auth").siteId);
    return c.json(seoView(stored.settings), 200);
  });

  app.openapi(updateSiteSeoRoute, async (c) => {
    const patch = seoPatch(c.req.valid("json"));
    const stored = await mergeStoredSettings(c.env, { site_id: c.get("auth").siteId, seo: patch });
    return c.json(seoView(stored), 200);
  });
}

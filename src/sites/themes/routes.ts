/** Spec section "Themes of a site": gallery, save the look, apply, undo, delete an organization theme. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import type { SitesAppEnv } from "../core/app-env";
import { IdParam, json, jsonBody } from "../core/route-parts";
import { guardedSite, holdsPermission } from "../site/guard";
import { SiteSchema } from "../site/record";
import {
  applyTheme,
  deleteOrgTheme,
  saveOrgTheme,
  ThemeSchema,
  themeGallery,
  undoTheme,
} from "./theme-service";

const ThemeParams = IdParam.extend({ theme_id: z.string().openapi({ description: "Theme id (ULID)" }) });

const SaveThemeBody = z
  .object({
    name: z.string().max(1000).openapi({ description: "1 to 80 characters" }),
    slug: z.string().max(1000).openapi({ description: "Unique among the organization's themes" }),
    description: z
      .string()
      .max(10_000)
      .nullable()
      .optional()
      .openapi({ description: "Up to 500 characters" }),
  })
  .strict()
  .openapi("SaveTheme", { description: "Unknown fields, org_id included, are refused (400)." });

const ApplyThemeBody = z
  .object({ theme_id: z.string().max(200) })
  .strict()
  .openapi("ApplyTheme");

const GallerySchema = z
  .object({
    items: z.array(ThemeSchema),
    undo_available: z
      .boolean()
      .openapi({ description: "An applied theme can be undone (a snapshot is kept)" }),
  })
  .openapi("ThemeGallery");

const galleryRoute = createRoute({
  method: "get",
  path: "/api/v1/sites/{id}/themes",
  summary: "Theme gallery: platform themes and the owner organization's themes",
  request: { params: IdParam },
  responses: {
    200: json(GallerySchema, "Gallery"),
    ...problemResponses({
      400: "BAD_REQUEST: id is neither ULID nor UUID",
      404: "NOT_FOUND: site missing or not the caller's",
      503: "THEMES_UNAVAILABLE",
    }),
  },
});

const saveRoute = createRoute({
  method: "post",
  path: "/api/v1/sites/{id}/themes",
  summary: "Save the site's look as an organization theme (version 1.0.0)",
  request: {
    params: IdParam,
    body: jsonBody(SaveThemeBody),
  },
  responses: {
    201: json(ThemeSchema, "Organization theme created"),
    ...problemResponses({
      400: "BAD_REQUEST, THEME_INVALID_NAME, THEME_INVALID_SLUG, THEME_EMPTY, CUSTOMIZATION_INVALID_SHAPE or a validator code",
      403: "FORBIDDEN: a member whose role may not manage themes",
      404: "NOT_FOUND: site missing or not the caller's",
      409: "THEME_SLUG_TAKEN",
      503: "THEMES_UNAVAILABLE",
    }),
  },
});

const applyRoute = createRoute({
  method: "post",
  path: "/api/v1/sites/{id}/themes/apply",
  summary: "Apply a theme (only look paths written; a snapshot kept for undo)",
  request: {
    params: IdParam,
    body: jsonBody(ApplyThemeBody),
  },
  responses: {
    200: json(SiteSchema, "The site after the apply"),
    ...problemResponses({
      400: "BAD_REQUEST or a settings validator code (CUSTOMIZATION_*, BUILDER_*, ...)",
      403: "FORBIDDEN: a member whose role may not manage themes, or (without the code permission) a result that would change the site's markup settings (html blocks dropped or brought back)",
      404: "NOT_FOUND (site) or THEME_NOT_FOUND",
      409: "SETTINGS_UNREADABLE or EDIT_CONFLICT",
      503: "THEMES_UNAVAILABLE",
    }),
  },
});

const undoRoute = createRoute({
  method: "post",
  path: "/api/v1/sites/{id}/themes/undo",
  summary: "Undo the latest apply (restores the look before it, path by path)",
  request: { params: IdParam },
  responses: {
    200: json(SiteSchema, "The site after the undo"),
    ...problemResponses({
      400: "BAD_REQUEST or the validator's code when the snapshot no longer passes (snapshot kept)",
      403: "FORBIDDEN: a member whose role may not manage themes, or (without the code permission) a result that would change the site's markup settings (html blocks dropped or brought back)",
      404: "NOT_FOUND: site missing or not the caller's",
      409: "THEME_NOTHING_TO_UNDO, SETTINGS_UNREADABLE or EDIT_CONFLICT",
      503: "THEMES_UNAVAILABLE",
    }),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/api/v1/sites/{id}/themes/{theme_id}",
  summary: "Delete an organization theme of the site's owner organization",
  request: { params: ThemeParams },
  responses: {
    204: { description: "Deleted (sites that applied it keep their look)" },
    ...problemResponses({
      400: "BAD_REQUEST: id is neither ULID nor UUID",
      403: "FORBIDDEN: a member whose role may not manage themes",
      404: "NOT_FOUND (site) or THEME_NOT_FOUND (platform, backup, another organization's, missing, malformed)",
      503: "THEMES_UNAVAILABLE",
    }),
  },
});

export function registerThemeRoutes(app: OpenAPIHono<SitesAppEnv>) {
  app.openapi(galleryRoute, async (c) => {
    const site = guardedSite(c, "read");
    return c.json(await themeGallery(c.env, c.get("services"), site), 200);
  });

  app.openapi(saveRoute, async (c) => {
    const site = guardedSite(c, "themes");
    return c.json(await saveOrgTheme(c.env, c.get("services"), site, c.req.valid("json")), 201);
  });

  app.openapi(applyRoute, async (c) => {
    const site = guardedSite(c, "themes");
    const { theme_id } = c.req.valid("json");
    return c.json(
      await applyTheme(c.env, c.get("services"), site, theme_id, holdsPermission(c, "code")),
      200,
    );
  });

  app.openapi(undoRoute, async (c) => {
    const site = guardedSite(c, "themes");
    return c.json(await undoTheme(c.env, c.get("services"), site, holdsPermission(c, "code")), 200);
  });

  app.openapi(deleteRoute, async (c) => {
    const site = guardedSite(c, "themes");
    await deleteOrgTheme(c.env, c.get("services"), site, c.req.valid("param").theme_id);
    return c.body(null, 204);
  });
}

/** Spec section "Platform operator console": platform themes (list, create, replace, delete). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, Next } from "hono";
import { bodyLimit } from "hono/body-limit";
import { problemResponses } from "../../lib/app";
import type { SitesAppEnv } from "../core/app-env";
import { json, jsonBody } from "../core/route-parts";
import { fail } from "../errors";
import { MAX_BODY_BYTES } from "../site/routes";
import {
  createPlatformTheme,
  deletePlatformTheme,
  listPlatformThemes,
  replacePlatformThemeById,
  ThemeSchema,
} from "../themes/theme-service";
import { requireOperator } from "./gate";

const ThemeIdParam = z.object({ theme_id: z.string().openapi({ description: "Theme id (ULID)" }) });

const PlatformThemeInput = z
  .object({
    name: z.string().max(1000).openapi({ description: "1 to 80 characters" }),
    slug: z.string().max(1000).openapi({ description: "Unique among platform themes" }),
    version: z.string().max(1000).openapi({ description: "Semantic version, e.g. 1.0.0" }),
    description: z.string().max(10_000).nullable().optional(),
    preview_url: z.string().max(10_000).nullable().optional().openapi({ description: "https URL" }),
    package: z.record(z.string(), z.unknown()).openapi({
      description:
        "The look, settings-shaped: customization (theme_base, colors with bg, text, primary, accent and optional dark, typography, layout), header.model, footer.model, home.blocks. Other keys are dropped.",
    }),
  })
  .strict()
  .openapi("PlatformThemeInput");

const FORBIDDEN = "PLATFORM_FORBIDDEN: no operator capability, or operator_read on a write";
const INVALID =
  "BAD_REQUEST, THEME_INVALID_NAME, THEME_INVALID_SLUG, THEME_INVALID_VERSION, THEME_INVALID_PREVIEW_URL, THEME_EMPTY, THEME_CONTRAST_INSUFFICIENT or a validator code (CUSTOMIZATION_*, BUILDER_*)";

const listRoute = createRoute({
  method: "get",
  path: "/api/v1/platform/themes",
  summary: "Platform themes",
  responses: {
    200: json(
      z.object({ items: z.array(ThemeSchema) }).openapi("PlatformThemes"),
      "Themes of scope platform",
    ),
    ...problemResponses({ 403: FORBIDDEN, 503: "THEMES_UNAVAILABLE" }),
  },
});

const createThemeRoute = createRoute({
  method: "post",
  path: "/api/v1/platform/themes",
  summary: "Create a platform theme (in every site's gallery at once)",
  request: { body: jsonBody(PlatformThemeInput) },
  responses: {
    201: json(ThemeSchema, "Platform theme created"),
    ...problemResponses({ 400: INVALID, 403: FORBIDDEN, 409: "THEME_SLUG_TAKEN", 503: "THEMES_UNAVAILABLE" }),
  },
});

const replaceRoute = createRoute({
  method: "put",
  path: "/api/v1/platform/themes/{theme_id}",
  summary: "Replace a platform theme entirely (sites that applied it are unchanged)",
  request: {
    params: ThemeIdParam,
    body: jsonBody(PlatformThemeInput),
  },
  responses: {
    200: json(ThemeSchema, "Platform theme replaced"),
    ...problemResponses({
      400: INVALID,
      403: FORBIDDEN,
      404: "THEME_NOT_FOUND (also an org theme, a backup or a malformed id)",
      409: "THEME_SLUG_TAKEN",
      503: "THEMES_UNAVAILABLE",
    }),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/api/v1/platform/themes/{theme_id}",
  summary: "Delete a platform theme (removed from every gallery; sites keep their look)",
  request: { params: ThemeIdParam },
  responses: {
    204: { description: "Deleted" },
    ...problemResponses({ 403: FORBIDDEN, 404: "THEME_NOT_FOUND", 503: "THEMES_UNAVAILABLE" }),
  },
});

/** The operator gate runs before the body is read: a caller without the capability learns nothing else. */
async function platformThemesGate(c: Context<SitesAppEnv>, next: Next) {
  requireOperator(
    c,
    c.req.method === "GET" || c.req.method === "HEAD" ? "read" : "write",
    "PLATFORM_FORBIDDEN",
  );
  await next();
}

const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    fail("PAYLOAD_TOO_LARGE", `Request body larger than ${MAX_BODY_BYTES} bytes.`);
  },
});

export function registerPlatformThemeRoutes(app: OpenAPIHono<SitesAppEnv>) {
  for (const path of ["/api/v1/platform/themes", "/api/v1/platform/themes/*"]) {
    app.use(path, platformThemesGate);
    app.use(path, limitBody);
  }

  app.openapi(listRoute, async (c) => {
    return c.json({ items: await listPlatformThemes(c.env, c.get("services")) }, 200);
  });

  app.openapi(createThemeRoute, async (c) => {
    return c.json(await createPlatformTheme(c.env, c.get("services"), c.req.valid("json")), 201);
  });

  app.openapi(replaceRoute, async (c) => {
    const { theme_id } = c.req.valid("param");
    return c.json(
      await replacePlatformThemeById(c.env, c.get("services"), theme_id, c.req.valid("json")),
      200,
    );
  });

  app.openapi(deleteRoute, async (c) => {
    await deletePlatformTheme(c.env, c.get("services"), c.req.valid("param").theme_id);
    return c.body(null, 204);
  });
}

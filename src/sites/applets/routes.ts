/** Spec section "Applets": the catalog with each app's state for the site, install and uninstall. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import type { SitesAppEnv } from "../core/app-env";
import { IdParam, json, jsonBody } from "../core/route-parts";
import { guardedSite } from "../site/guard";
import { listApplets, setApplet } from "./applets-service";

const AppletParams = IdParam.extend({
  slug: z.string().openapi({ description: "The app's slug in the catalog" }),
});

const PostTypeTemplateSchema = z
  .object({ slug: z.string(), name: z.string(), public: z.boolean() })
  .openapi("PostTypeTemplate", { description: "The content type the app materializes in content" });

const AppletSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    post_type_template: PostTypeTemplateSchema.nullable(),
    enabled: z.boolean(),
    installed_at: z
      .string()
      .nullable()
      .openapi({ description: "RFC 3339; when the current installation began, null when not installed" }),
  })
  .openapi("Applet");

const AppletSwitch = z
  .object({ enabled: z.boolean().openapi({ description: "true installs, false uninstalls" }) })
  .strict()
  .openapi("AppletSwitch");

const listAppletsRoute = createRoute({
  method: "get",
  path: "/api/v1/sites/{id}/applets",
  summary: "The whole applets catalog with each app's state on this site",
  request: { params: IdParam },
  responses: {
    200: json(z.object({ items: z.array(AppletSchema) }).openapi("AppletList"), "Every app of the catalog"),
    ...problemResponses({ 400: "id is neither ULID nor UUID", 404: "Site missing or not the caller's" }),
  },
});

const putAppletRoute = createRoute({
  method: "put",
  path: "/api/v1/sites/{id}/applets/{slug}",
  summary: "Install or uninstall an app (uninstalling never deletes data)",
  description:
    "An app with a post_type_template has its content type created (or disabled) in content BEFORE the flag is stored; content down is 502 with nothing stored. The full-page cache is purged afterwards.",
  request: {
    params: AppletParams,
    body: jsonBody(AppletSwitch),
  },
  responses: {
    200: json(AppletSchema, "The app's state after the operation"),
    ...problemResponses({
      400: "BAD_REQUEST (invalid id or body) or SETTINGS_INVALID_APPLETS (stored applets refused)",
      403: "FORBIDDEN: a member whose role may not manage apps",
      404: "NOT_FOUND (site missing or not the caller's) or APPLET_NOT_FOUND (slug outside the catalog)",
      409: "SETTINGS_UNREADABLE or EDIT_CONFLICT",
      502: "APPLET_CONTENT_UNAVAILABLE: content could not change the app's content type; nothing stored",
    }),
  },
});

export function registerAppletRoutes(app: OpenAPIHono<SitesAppEnv>) {
  app.openapi(listAppletsRoute, (c) => {
    return c.json({ items: listApplets(guardedSite(c, "read")) }, 200);
  });

  app.openapi(putAppletRoute, async (c) => {
    const site = guardedSite(c, "applets");
    const { slug } = c.req.valid("param");
    const state = await setApplet(c.env, c.get("services"), site, slug, c.req.valid("json").enabled);
    return c.json(state, 200);
  });
}

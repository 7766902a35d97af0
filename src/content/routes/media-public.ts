/**
 * `GET /media/{key}`: media bytes from R2 (originals `sites/{site}/{id}.{ext}`, variants
 * `sites/{site}/{id}/{width}.{ext}`), so `MEDIA_PUBLIC_BASE` URLs work locally as on the CDN.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { notFoundResponse } from "../../lib/problem";
import type { AppEnv } from "../bindings";
import { mediaStatus } from "../store/media";

const KEY_RE = /^sites\/([0-9A-Za-z-]{26,36})\/([0-9A-Za-z]{26})(?:\/\d{1,5})?\.[a-z0-9]{2,5}$/;

export function registerMediaPublicRoute(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/media/{key}",
    tags: ["Media"],
    summary: "Public media file: an original or a variant (immutable; the key embeds the site and media ids)",
    request: {},
    responses: {
      200: { description: "The file" },
      404: { description: "No such file" },
    },
  });
  app.get("/media/*", async (c) => {
    const key = decodeURIComponent(c.req.path.slice("/media/".length));
    const match = KEY_RE.exec(key);
    if (!match) return notFoundResponse();
    // A soft-deleted asset stops being served (unknown ids, e.g. not yet recorded, fall through to R2).
    if ((await mediaStatus(c.env.DB, match[1] as string, match[2] as string)) === "deleted") {
      return notFoundResponse();
    }
    const object = await c.env.MEDIA.get(key);
    if (!object) return notFoundResponse();
    return new Response(object.body, {
      headers: {
        "content-type": object.httpMetadata?.contentType ?? "application/octet-stream",
        "cache-control": "public, max-age=31536000, immutable",
        etag: object.httpEtag,
        "x-content-type-options": "nosniff",
        // An SVG opened directly must not run anything even if sanitizing ever missed something.
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      },
    });
  });
}

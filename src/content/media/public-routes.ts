/**
 * `GET /media/{key}`: media bytes from R2 (originals `sites/{site}/{id}.{ext}`, variants
 * `sites/{site}/{id}/{width}.{ext}`), so `MEDIA_PUBLIC_BASE` URLs work locally as on the CDN.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { parseId } from "../../lib/ids";
import { notFoundResponse } from "../../lib/problem";
import type { AppEnv } from "../core/bindings";
import { enterSite } from "../core/routing";
import { mediaStatus } from "./store";

const KEY_RE = /^sites\/([0-9A-Za-z-]{26,36})\/([0-9A-Za-z]{26})(?:\/\d{1,5})?\.[a-z0-9]{2,5}$/;

/**
 * The bytes at a URL never change, but a deletion ends them: shared caches (the CDN) keep a copy for a
 * year and are purged when the asset is deleted; browsers, which no purge reaches, keep theirs a day
 * and then revalidate with the ETag.
 */
export const MEDIA_CACHE_CONTROL = "public, max-age=86400, s-maxage=31536000";

/**
 * Whether the file at `key` may be served: a key of our shape whose site content knows (the request routed
 * to its group) and whose asset is not soft-deleted there (unknown ids, e.g. not yet recorded, fall through
 * to R2).
 */
async function servable(c: Context<AppEnv>, key: string): Promise<boolean> {
  const match = KEY_RE.exec(key);
  const siteId = match ? parseId(match[1] as string) : null;
  if (!match || siteId !== match[1]) return false;
  const routed = await enterSite(c, siteId);
  if (!routed) return false;
  return (await mediaStatus(routed.env.DB, siteId, match[2] as string)) !== "deleted";
}

export function registerMediaPublicRoute(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/media/{key}",
    tags: ["Media"],
    summary: "Public media file: an original or a variant (the key embeds the site and media ids)",
    description: `Cache-Control: ${MEDIA_CACHE_CONTROL}, with an ETag (If-None-Match answers 304). A deleted asset's files answer 404 and are purged from the CDN.`,
    request: {},
    responses: {
      200: { description: "The file" },
      304: { description: "Not modified" },
      404: { description: "No such file" },
    },
  });
  app.get("/media/*", async (c) => {
    const key = decodeURIComponent(c.req.path.slice("/media/".length));
    if (!(await servable(c, key))) return notFoundResponse();
    // Only If-None-Match is honoured (304); other preconditions would need 412s nobody asks for.
    const ifNoneMatch = c.req.header("if-none-match");
    const object = await c.env.MEDIA.get(
      key,
      ifNoneMatch ? { onlyIf: new Headers({ "if-none-match": ifNoneMatch }) } : {},
    );
    if (!object) return notFoundResponse();
    const headers = {
      "cache-control": MEDIA_CACHE_CONTROL,
      etag: object.httpEtag,
      "x-content-type-options": "nosniff",
      // An SVG opened directly must not run anything even if sanitizing ever missed something.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    };
    if (!("body" in object)) return new Response(null, { status: 304, headers });
    return new Response(object.body, {
      headers: { ...headers, "content-type": object.httpMetadata?.contentType ?? "application/octet-stream" },
    });
  });
}

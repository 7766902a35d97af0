/** Public read answers: a strong ETag over the exact body, a short shared cache, and 304 on a match. */
import type { Context } from "hono";
import type { AppEnv } from "../bindings";
import { etagFor, matchesIfNoneMatch } from "../rules/etag";

export async function sendCacheable(c: Context<AppEnv>, value: unknown): Promise<Response> {
  const body = JSON.stringify(value);
  const etag = await etagFor(body);
  c.header("etag", etag);
  c.header("cache-control", "public, max-age=60");
  // The same URL answers per key (each key is one site's), and the CORS headers follow the pk_ origin.
  c.header("vary", "Authorization, Origin");
  if (matchesIfNoneMatch(c.req.header("if-none-match"), etag)) return c.body(null, 304);
  return c.body(body, 200, { "content-type": "application/json; charset=UTF-8" });
}

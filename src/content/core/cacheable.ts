/** Public read answers: a strong ETag over the exact body, a short shared cache, and 304 on a match. */
import type { Context } from "hono";
import type { AppEnv } from "./bindings";
import { type EdgePlace, PUBLIC_ANSWER_TTL_MS, type PublicAnswer } from "./edge-cache";
import { matchesIfNoneMatch } from "./etag";

export function sendPublicAnswer(c: Context<AppEnv>, answer: PublicAnswer): Response {
  c.header("etag", answer.etag);
  c.header("cache-control", `public, max-age=${PUBLIC_ANSWER_TTL_MS / 1000}`);
  // The same URL answers per key (each key is one site's), and the CORS headers follow the pk_ origin.
  c.header("vary", "Authorization, Origin");
  if (matchesIfNoneMatch(c.req.header("if-none-match"), answer.etag)) return c.body(null, 304);
  return c.body(answer.body, 200, { "content-type": "application/json; charset=UTF-8" });
}

/** The request's place for the edge cache: entries live under the Worker's own origin. */
export function edgePlace(c: Context<AppEnv>): EdgePlace {
  return { origin: new URL(c.req.url).origin, waitUntil: (promise) => c.executionCtx.waitUntil(promise) };
}

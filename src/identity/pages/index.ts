/**
 * The hosted pages of the identity host under `/auth/*` (also reached through the gateway's `/auth/*`),
 * and their assets under `/auth/assets/*`. Pages are not API operations: they stay out of the OpenAPI
 * document.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { ACCOUNT_ASSETS, registerAccountPages } from "./account";
import { registerAccountLifePages } from "./account-life";
import { COMMON_ASSETS, type PageAsset } from "./assets";
import { AUTHORIZE_ASSETS, registerAuthorizePages } from "./authorize";
import { SCRIPT_ASSETS } from "./scripts";
import { registerSignInPages } from "./sign-in";

const ASSETS: Record<string, PageAsset> = {
  ...COMMON_ASSETS,
  ...SCRIPT_ASSETS,
  ...ACCOUNT_ASSETS,
  ...AUTHORIZE_ASSETS,
};

/** Each asset's ETag, hashed once per isolate (the bodies are constants of the bundle). */
const ETAGS = new Map<string, Promise<string>>();

function etagOf(name: string, body: string): Promise<string> {
  let etag = ETAGS.get(name);
  if (!etag) {
    etag = hashTag(body);
    ETAGS.set(name, etag);
  }
  return etag;
}

async function hashTag(body: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  const hex = [...new Uint8Array(digest).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `"${hex}"`;
}

export function registerHostedPages(app: OpenAPIHono<AppEnv>) {
  app.get("/auth/assets/:name", async (c) => {
    const name = c.req.param("name");
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return c.notFound();
    const etag = await etagOf(name, asset.body);
    const headers = {
      "content-type": `${asset.type}; charset=utf-8`,
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
      etag,
    };
    if (c.req.header("if-none-match") === etag) return new Response(null, { status: 304, headers });
    return new Response(asset.body, { headers });
  });
  registerSignInPages(app);
  registerAccountPages(app);
  registerAccountLifePages(app);
  registerAuthorizePages(app);
}

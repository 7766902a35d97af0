/** `GET /v1/categories` and `GET /v1/tags` (issue 22, beyond the spec's table). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/bindings";
import { edgePlace, sendPublicAnswer } from "../core/cacheable";
import { keyAuth } from "../keys/middleware";
import { languageParam } from "../posts/resolve";
import { type TaxonomyKind, taxonomyAnswer } from "./taxonomy";

const TermSchema = z
  .object({
    slug: z.string(),
    name: z.string().openapi({ description: "The slug in words (posts carry slugs only)" }),
    count: z.number().int().openapi({ description: "Public posts carrying the term" }),
  })
  .openapi("TaxonomyTerm");

export const TermsSchema = z.object({ items: z.array(TermSchema) }).openapi("TaxonomyTerms");

export const TermsQuery = z.object({
  language: z.string().optional().openapi({ description: "BCP-47; count only posts in this language" }),
  key: z
    .string()
    .optional()
    .openapi({ description: "pk_ key for browsers; ignored when Authorization is sent" }),
});

function termsRoute(kind: TaxonomyKind) {
  return createRoute({
    method: "get",
    path: `/v1/${kind}`,
    tags: ["Posts"],
    summary: `List the site's ${kind} with their public post counts`,
    description: `Scope posts:read (ck_ or pk_). Every ${kind === "categories" ? "category" : "tag"} slug carried by a public post (at most 1,000), most used first, with the number of public posts (per language with ?language=). Cached like the post list and purged with it.`,
    ...keyAuth({ kinds: "any", scopes: ["posts:read"], quota: "read" }),
    request: { query: TermsQuery },
    responses: {
      200: { description: "The terms", content: { "application/json": { schema: TermsSchema } } },
      304: { description: "Not modified" },
      ...problemResponses({
        400: "Invalid language",
        401: "Key missing or invalid",
        403: "Insufficient scope, or a pk_ key from an origin outside its allowlist",
        429: "Quota exceeded",
      }),
    },
  });
}

/** `GET …/categories`, `GET …/tags`: shared by the `/v1` key routes and the dashboard routes. */
export async function termsAnswer(c: Context<AppEnv>, kind: TaxonomyKind, language: string | undefined) {
  const answer = await taxonomyAnswer(c.env, c.get("auth"), kind, languageParam(language), edgePlace(c));
  return sendPublicAnswer(c, answer);
}

export function registerTaxonomyRoutes(app: OpenAPIHono<AppEnv>) {
  for (const kind of ["categories", "tags"] as const) {
    app.openapi(termsRoute(kind), (c) => termsAnswer(c, kind, c.req.valid("query").language));
  }
}

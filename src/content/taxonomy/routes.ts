/**
 * `GET /v1/categories` and `GET /v1/tags` (issue 22, beyond the spec's table); `PATCH /v1/categories/{slug}`
 * and `PATCH /v1/tags/{slug}` (issue 35): a term's name and description.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/bindings";
import { edgePlace, sendPublicAnswer } from "../core/cacheable";
import { includeQuery, includesTotal } from "../core/list-include";
import type { KeyRequirement } from "../keys/api-key";
import { keyAuth } from "../keys/middleware";
import { languageParam } from "../posts/resolve";
import { editTaxonomyTerm, type TaxonomyKind, taxonomyAnswer } from "./taxonomy";

const TermFields = {
  slug: z.string(),
  name: z.string().openapi({
    description: "The name the site gave the term (PATCH); without one, the slug in words (`sdk` -> `Sdk`)",
  }),
  description: z.string().nullable().openapi({ description: "null until the site describes the term" }),
};

/** A term as a post detail and an edit show it. */
export const TermViewSchema = z.object(TermFields).openapi("TaxonomyTermView");

const TermSchema = z
  .object({
    ...TermFields,
    count: z.number().int().openapi({ description: "Public posts carrying the term" }),
  })
  .openapi("TaxonomyTerm");

export const TermsSchema = z
  .object({
    items: z.array(TermSchema),
    total: z.number().int().optional().openapi({
      description: "With include=total: how many terms public posts carry in all (the list stops at 1,000)",
    }),
  })
  .openapi("TaxonomyTerms");

export const TermsQuery = z.object({
  language: z.string().optional().openapi({ description: "BCP-47; count only posts in this language" }),
  include: includeQuery(),
  key: z
    .string()
    .optional()
    .openapi({ description: "pk_ key for browsers; ignored when Authorization is sent" }),
});

export const UpdateTermSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    description: z.string().max(1000).nullable().openapi({ description: "null clears it" }),
  })
  .partial()
  .openapi("UpdateTaxonomyTerm");

export const TermSlugParam = z.object({
  slug: z.string().min(1).openapi({ description: "The term's slug", example: "news" }),
});

const singular = (kind: TaxonomyKind) => (kind === "categories" ? "category" : "tag");

function termsRoute(kind: TaxonomyKind) {
  return createRoute({
    method: "get",
    path: `/v1/${kind}`,
    tags: ["Posts"],
    summary: `List the site's ${kind} with their public post counts`,
    description: `Scope posts:read (ck_ or pk_). Every ${singular(kind)} slug carried by a public post (at most 1,000), most used first, with its name and description and the number of public posts (per language with ?language=). Cached like the post list and purged with it.`,
    ...keyAuth({ kinds: "any", scopes: ["posts:read"], quota: "read" }),
    request: { query: TermsQuery },
    responses: {
      200: { description: "The terms", content: { "application/json": { schema: TermsSchema } } },
      304: { description: "Not modified" },
      ...problemResponses({
        400: "Invalid language or include",
        401: "Key missing or invalid",
        403: "Insufficient scope, or a pk_ key from an origin outside its allowlist",
        429: "Quota exceeded",
      }),
    },
  });
}

/** Terms are managed with the scope that writes posts (posts carry them), as authors are. */
const MANAGE_KEY: KeyRequirement = { kinds: "secret", scopes: ["posts:write"], quota: "write" };

export const termEditProblems = problemResponses({
  400: "Invalid body (an unknown field is named in details.path), or nothing editable",
  401: "Key missing or invalid",
  403: "Insufficient scope, or not a ck_ key",
  404: "No such term on the site (no post carries it and it was never edited), or another site's",
  429: "Quota exceeded",
});

function updateTermRoute(kind: TaxonomyKind) {
  return createRoute({
    method: "patch",
    path: `/v1/${kind}/{slug}`,
    tags: ["Posts"],
    summary: `Name or describe a ${singular(kind)}`,
    description: `Scope posts:write (ck_). Only sent fields change: \`name\` (1-100 characters; it replaces the name derived from the slug everywhere the ${singular(kind)} is shown) and \`description\` (0-1000, null clears it). The slug itself stays (posts carry it). A slug no post of the site carries, never edited, is 404, as is another site's.`,
    ...keyAuth(MANAGE_KEY),
    request: {
      params: TermSlugParam,
      body: { content: { "application/json": { schema: UpdateTermSchema } }, required: true },
    },
    responses: {
      200: {
        description: "The term as stored",
        content: { "application/json": { schema: TermViewSchema } },
      },
      ...termEditProblems,
    },
  });
}

/** `GET …/categories`, `GET …/tags`: shared by the `/v1` key routes and the dashboard routes. */
export async function termsAnswer(
  c: Context<AppEnv>,
  kind: TaxonomyKind,
  query: { language?: string | undefined; include?: string | undefined },
) {
  const read = { language: languageParam(query.language), total: includesTotal(query.include) };
  return sendPublicAnswer(c, await taxonomyAnswer(c.env, c.get("auth"), kind, read, edgePlace(c)));
}

/** `PATCH …/categories/{slug}`, `PATCH …/tags/{slug}`: shared by the `/v1` key routes and the dashboard routes. */
export async function updateTermAnswer(
  c: Context<AppEnv>,
  kind: TaxonomyKind,
  slug: string,
  body: z.infer<typeof UpdateTermSchema>,
) {
  return c.json(await editTaxonomyTerm(c.env, c.get("auth").siteId, kind, slug, body), 200);
}

const routes = {
  categories: { list: termsRoute("categories"), update: updateTermRoute("categories") },
  tags: { list: termsRoute("tags"), update: updateTermRoute("tags") },
};

export function registerTaxonomyRoutes(app: OpenAPIHono<AppEnv>) {
  for (const kind of ["categories", "tags"] as const) {
    app.openapi(routes[kind].list, (c) => termsAnswer(c, kind, c.req.valid("query")));
    app.openapi(routes[kind].update, (c) =>
      updateTermAnswer(c, kind, c.req.valid("param").slug, c.req.valid("json")),
    );
  }
}

/** Spec section "Legal pages": the catalog of a site's case and the generation of its legal pages. */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { bearerRefusal } from "../../lib/bearer";
import { readEdgeIdentity } from "../../lib/edge";
import { enumQuery } from "../../lib/query-params";
import type { SitesAppEnv } from "../core/app-env";
import { IdParam, json, jsonBody } from "../core/route-parts";
import { guardedSite } from "../site/guard";
import { PERFIS, SETORES } from "./cases";
import { JURISDICTIONS } from "./catalog";
import { generateLegalPages, legalCatalog } from "./legal-pages";

const CatalogEntry = z
  .object({
    slug: z.string(),
    title: z.string(),
    ordem: z.number().int(),
    path: z.string().openapi({ description: "/legal/ for the index, /legal/<slug> for a document" }),
    summary: z.string(),
    is_index: z.boolean(),
    language: z.enum(["pt", "en"]).openapi({
      description:
        "The text's language: the site's default language where a translation exists, else the jurisdiction's",
    }),
  })
  .openapi("LegalCatalogEntry");

const GenerateBody = z
  .object({
    documentos: z.array(z.string().max(64)).min(1).max(50).optional().openapi({
      description: "Slugs of the catalog to write (all when absent); the index is always rewritten",
    }),
  })
  .strict()
  .openapi("LegalGenerate");

const GenerationItem = z
  .object({
    slug: z.string(),
    title: z.string(),
    ordem: z.number().int(),
    path: z.string(),
    resultado: z.enum(["criada", "atualizada", "existente_publicada", "existente_preservada", "erro"]),
    pendencias: z
      .array(z.string())
      .openapi({ description: "Placeholders of the generated text left for the owner" }),
    adotada: z.boolean().optional(),
    post_id: z.string().optional(),
    status: z.string().optional(),
    url: z.string().optional(),
    code: z.string().optional().openapi({ description: "With resultado erro: why the write failed" }),
    detail: z.string().optional(),
  })
  .openapi("LegalGenerationItem");

const catalogRoute = createRoute({
  method: "get",
  path: "/api/v1/sites/{id}/legal/catalogo",
  summary:
    "The legal documents generation would produce (saved case and jurisdiction; query overrides), index first",
  request: {
    params: IdParam,
    query: z.object({
      perfil: enumQuery(PERFIS),
      setor: enumQuery(SETORES),
      jurisdiction: enumQuery(
        JURISDICTIONS,
        "Preview another jurisdiction's set (saved: settings.legal.jurisdiction, default br)",
      ),
    }),
  },
  responses: {
    200: json(z.array(CatalogEntry), "Documents in index order"),
    ...problemResponses({
      400: "BAD_REQUEST (id) or LEGAL_INVALID_CASE",
      404: "Site missing or not the caller's",
    }),
  },
});

const generateRoute = createRoute({
  method: "post",
  path: "/api/v1/sites/{id}/legal/generate",
  summary: "Write the site's legal documents as pages (new ones as drafts); one result per document",
  request: {
    params: IdParam,
    body: jsonBody(GenerateBody, false),
  },
  responses: {
    200: json(
      z
        .object({
          perfil: z.string(),
          setor: z.string(),
          jurisdiction: z.enum(JURISDICTIONS),
          items: z.array(GenerationItem),
        })
        .openapi("LegalGeneration"),
      "One result per document in catalog order (the index first, written last)",
    ),
    ...problemResponses({
      400: "BAD_REQUEST (id or body) or LEGAL_UNKNOWN_DOC (or LEGAL_INVALID_CASE for a saved case no longer valid)",
      401: "UNAUTHENTICATED: no X-User-Id",
      403: "FORBIDDEN: a member whose role may not generate legal pages",
      404: "Site missing or not the caller's",
      409: "APPLET_DISABLED: the legal pages app is off",
    }),
  },
});

export function registerLegalRoutes(app: OpenAPIHono<SitesAppEnv>) {
  app.openapi(catalogRoute, (c) => {
    const site = guardedSite(c, "read");
    return c.json(legalCatalog(site, c.req.valid("query")), 200);
  });

  app.openapi(generateRoute, async (c) => {
    const site = guardedSite(c, "legal");
    const userId = readEdgeIdentity(c.req.raw.headers).userId;
    if (!userId) throw bearerRefusal("missing", "X-User-Id is required to generate legal pages.");
    const body = c.req.valid("json") ?? {};
    return c.json(await generateLegalPages(c.env, c.get("services"), site, userId, body), 200);
  });
}

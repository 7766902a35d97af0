/**
 * What every sites route declaration repeats: a JSON response, a JSON request body and the site's id as
 * the path parameter `{id}` (OpenAPI only; the handlers validate the id themselves).
 */
import { z } from "@hono/zod-openapi";

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** A JSON request body; `required: false` where the route also takes none. */
export const jsonBody = <T extends z.ZodType>(schema: T, required = true) => ({
  required,
  content: { "application/json": { schema } },
});

export const IdParam = z.object({ id: z.string().openapi({ description: "Site id (ULID or UUID)" }) });

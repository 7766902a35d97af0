/**
 * Query parameters documented as what they carry (issue 33): a number is `type: integer` with its bounds and
 * default, a choice is an `enum`, a flag is `boolean`, so a typed client sends `limit: 5` and cannot send
 * `limit: "five"`. On the wire every query value is text: the schema hands it on as sent and the route's own
 * parser reads it, refusing a bad value with the code its spec names (`INVALID_LIMIT`, `INVALID_ORDER`, …) at
 * its place in the route's order of checks (after the key or the session). A zod refusal would answer
 * first, and always as `BAD_REQUEST`. The bounds come from the parser's own constants, so the document
 * and the parser cannot disagree.
 */
import { z } from "@hono/zod-openapi";

interface IntegerBounds {
  minimum: number;
  maximum: number;
  default?: number;
  description?: string;
}

/** An optional integer query parameter (`?limit=20`), read by the route's parser. */
export function integerQuery(bounds: IntegerBounds) {
  return z
    .string()
    .optional()
    .openapi({ ...bounds, type: "integer" });
}

/** An optional query parameter that is one of `values` (`?ordem=asc`), read by the route's parser. */
export function enumQuery(values: readonly [string, ...string[]], description?: string) {
  return z
    .string()
    .optional()
    .openapi({ type: "string", enum: [...values], ...(description ? { description } : {}) });
}

/**
 * An optional flag (`?keep_current=true`): `true`/`1` or `false`/`0`, anything else a 400 `BAD_REQUEST`
 * (no route names a code of its own for a bad flag); the handler gets a boolean, `undefined` when absent.
 */
export function booleanQuery(description?: string) {
  return z
    .enum(["true", "false", "1", "0"])
    .transform((raw) => raw === "true" || raw === "1")
    .optional()
    .openapi({ type: "boolean", ...(description ? { description } : {}) });
}

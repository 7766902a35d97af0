/** The wire shape of a lead: one list item, the by-id answer and one NDJSON export line are the same. */
import { z } from "@hono/zod-openapi";
import type { LeadRow } from "./store";

export const LeadSchema = z
  .object({
    id: z.string(),
    form_id: z.string(),
    status: z.enum(["clean", "spam"]),
    spam_reasons: z.array(z.string()).openapi({
      description:
        "Why a lead is spam: honeypot, no_token, bad_token, too_fast, stale_token, links, rate, duplicate, reused_token. Empty when clean.",
    }),
    fields: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .openapi({ description: "The declared fields that were filled in, by field name" }),
    page_url: z.string().nullable().openapi({ description: "The page the form was sent from, when given" }),
    created_at: z.string(),
  })
  .openapi("Lead");

export type Lead = z.infer<typeof LeadSchema>;

export function toLead(row: LeadRow): Lead {
  return {
    id: row.id,
    form_id: row.form_id,
    status: row.status,
    spam_reasons: JSON.parse(row.spam_reasons_json) as string[],
    fields: JSON.parse(row.fields_json) as Lead["fields"],
    page_url: row.page_url,
    created_at: row.created_at,
  };
}

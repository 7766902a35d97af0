/**
 * Integrations a transfer carried over (issue 19): when a site changes owner, the site-transferred consumer
 * suspends the origin's API keys and webhooks (`restampStatements`). They are listed to the new owner's
 * administrators with `carried_over` set, refused (key 401, webhook not delivered) until one of them keeps
 * the integration (`POST …/keep`: active again, stamped for the new owner) or revokes / deletes it with the
 * existing operations. Never kept by default.
 */
import { z } from "@hono/zod-openapi";
import { parseId } from "../../lib/ids";
import { fail } from "../errors";
import { keyContexts } from "../keys/key-cache";
import { keepCarriedOver } from "./store";

export const CarriedOverSchema = z
  .object({
    from_org_id: z
      .string()
      .openapi({ description: "The organization that owned the site before the transfer" }),
    at: z.string().openapi({ description: "When the transfer was accepted" }),
  })
  .nullable()
  .openapi("CarriedOver", {
    description:
      "Set when a transfer of the site carried this integration over from the previous owner: suspended until an administrator keeps it (POST …/keep) or removes it. Null when active.",
  });

/** Keeps carried-over key `rawId` of the site; an unknown, active, revoked or other site's key is 404. */
/** Keeps carried-over API key `rawId` of the site; answers its id in stored form. */
export async function keepApiKey(db: D1Database, siteId: string, rawId: string): Promise<string> {
  const id = parseId(rawId);
  if (id === null || !(await keepCarriedOver(db, "api_keys", siteId, id))) {
    fail("NOT_FOUND", "No such carried-over API key.");
  }
  // This isolate reads the key afresh; elsewhere a cached suspended copy only refuses (never grants).
  keyContexts.forgetKey(id);
  return id;
}

/** Keeps carried-over webhook `rawId` of the site: delivered again from the next event on. */
export async function keepWebhook(db: D1Database, siteId: string, rawId: string): Promise<string> {
  const id = parseId(rawId);
  if (id === null || !(await keepCarriedOver(db, "webhooks", siteId, id))) {
    fail("NOT_FOUND", "No such carried-over webhook.");
  }
  return id;
}

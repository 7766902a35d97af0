/**
 * Identity's `account.deleted` (issue 24 §2), on the identity -> content queue (`site-transferred`, the
 * one binding identity has to content): once an account's personal data is erased, its author personas
 * drop the person's name. In one D1 batch, each persona of the user gets the byline "Former author"
 * ("Former author 2", … when the user had several on one site: a persona is unique per site, user and
 * name) and a slug without the name (`former-author-<random>`), the posts it signs follow (slug and
 * byline), keys the user created sign new posts as "Former author", and who-made-what (posts' created_by
 * and updated_by, revisions' made_by) names the user "Former author" (issue 34). Idempotent: personas already
 * renamed are left as they are, so a redelivered message changes nothing.
 */
import { z } from "@hono/zod-openapi";
import type { Logger } from "../../lib/log";
import { errorFields } from "../../lib/log";
import { batch } from "../../lib/sql";
import type { WorkerEnv } from "../core/bindings";
import { forEachGroup } from "../core/groups";
import { keyContexts } from "../keys/key-cache";
import {
  actorNameStatements,
  keySitesOf,
  keysAuthorNameStatement,
  personasToRename,
  renamePersonaStatements,
} from "./account-deleted-store";

export const FORMER_AUTHOR = "Former author";
const RENAMED_PREFIX = "former-author-";

const AccountDeletedMessage = z.object({
  type: z.literal("account.deleted"),
  user_id: z.string().min(1).max(64),
  at: z.string().datetime(),
});

/** Whether a message of the identity queue is an `account.deleted` (the rest are site transfers). */
export function isAccountDeleted(message: Message<unknown>): boolean {
  const body = message.body as { type?: unknown } | null;
  return typeof body === "object" && body !== null && body.type === "account.deleted";
}

function randomSlug(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return RENAMED_PREFIX + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The statements that take the user's name out of content, and the sites whose key contexts change. */
async function anonymizeStatements(db: D1Database, userId: string) {
  const [personas, keySites] = await Promise.all([
    personasToRename(db, userId, RENAMED_PREFIX),
    keySitesOf(db, userId),
  ]);
  const perSite = new Map<string, number>();
  const statements = personas.flatMap((p) => {
    const n = (perSite.get(p.site_id) ?? 0) + 1;
    perSite.set(p.site_id, n);
    const name = n === 1 ? FORMER_AUTHOR : `${FORMER_AUTHOR} ${n}`;
    return renamePersonaStatements(db, p, randomSlug(), name);
  });
  statements.push(keysAuthorNameStatement(db, userId, FORMER_AUTHOR));
  // Who made what (posts' created_by and updated_by, revisions' made_by) says "Former author" too.
  statements.push(...actorNameStatements(db, userId, FORMER_AUTHOR));
  return { statements, sites: [...new Set([...perSite.keys(), ...keySites.map((k) => k.site_id)])] };
}

/**
 * The batch's `account.deleted` messages: a person has personas and keys on sites of any group, so every
 * group is visited once for the whole batch (site-groups.md, "Queues"). A message is acked once every group
 * applied it, else retried (applying it again changes nothing where it was applied).
 */
export async function consumeAccountDeleted(
  env: WorkerEnv,
  messages: readonly Message<unknown>[],
  log: Logger,
) {
  const valid: { message: Message<unknown>; userId: string }[] = [];
  for (const message of messages) {
    const parsed = AccountDeletedMessage.safeParse(message.body);
    if (parsed.success) valid.push({ message, userId: parsed.data.user_id });
    else {
      log.error("account_deleted_malformed", { message_id: message.id });
      message.ack();
    }
  }
  if (valid.length === 0) return;
  const failed = new Set<Message<unknown>>();
  const sites = new Map<Message<unknown>, number>();
  await forEachGroup(env, async (groupEnv, group) => {
    for (const { message, userId } of valid) {
      try {
        const applied = await anonymizeStatements(groupEnv.DB, userId);
        await batch(groupEnv.DB, applied.statements);
        for (const site of applied.sites) keyContexts.forgetSite(site);
        sites.set(message, (sites.get(message) ?? 0) + applied.sites.length);
      } catch (err) {
        failed.add(message);
        log.warn("account_deleted_failed", { user_id: userId, group, ...errorFields(err) });
      }
    }
  });
  for (const { message, userId } of valid) {
    if (failed.has(message)) {
      message.retry({ delaySeconds: Math.min(30 * 2 ** (message.attempts - 1), 3600) });
      continue;
    }
    log.info("account_deleted_applied", { user_id: userId, sites: sites.get(message) ?? 0 });
    message.ack();
  }
}

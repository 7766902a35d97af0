/** The language of a recipient (the `locale` of the account that holds the address or phone) and an invitation's context. */
import { and, desc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { emailAddresses, orgs, phones, users } from "../../../schema/identity";
import type { Locale } from "./messages";

/**
 * The locale of the account an e-mail address (a verified row first: a pending row may sit on several
 * accounts) or a phone belongs to; null when no account holds it.
 */
export async function recipientLocale(
  db: D1Database,
  channel: "email" | "sms",
  to: string,
): Promise<Locale | null> {
  const d = drizzle(db);
  const row =
    channel === "email"
      ? await d
          .select({ locale: users.locale })
          .from(emailAddresses)
          .innerJoin(users, eq(users.id, emailAddresses.user_id))
          .where(eq(emailAddresses.address, to))
          .orderBy(desc(emailAddresses.is_primary), desc(emailAddresses.verified_at))
          .limit(1)
          .get()
      : await d
          .select({ locale: users.locale })
          .from(phones)
          .innerJoin(users, eq(users.id, phones.user_id))
          .where(eq(phones.e164, to))
          .orderBy(desc(phones.verified_at))
          .limit(1)
          .get();
  return row?.locale ?? null;
}

/**
 * What an invitation mail says of who invites and where: the organization's name, the inviter's display
 * name (else primary address) and the inviter's locale (the mail's language when the invitee has no
 * account: identity does not know a site's language, docs/decisions/mail.md).
 */
export async function invitationContext(
  db: D1Database,
  orgId: string,
  inviterId: string,
): Promise<{ org: string; inviter?: string; locale: Locale }> {
  const d = drizzle(db);
  const [org, inviter] = await Promise.all([
    d.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, orgId)).get(),
    d
      .select({ name: users.display_name, locale: users.locale, address: emailAddresses.address })
      .from(users)
      .leftJoin(emailAddresses, and(eq(emailAddresses.user_id, users.id), eq(emailAddresses.is_primary, 1)))
      .where(eq(users.id, inviterId))
      .get(),
  ]);
  const name = inviter?.name || inviter?.address || undefined;
  return { org: org?.name ?? "", ...(name ? { inviter: name } : {}), locale: inviter?.locale ?? "en" };
}

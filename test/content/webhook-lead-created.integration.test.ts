/**
 * `lead.created` (issue 22): a clean lead is delivered, signed, only to webhooks whose creator may read
 * leads (a webhook with an accountable creating user), and every delivery attempt is audited like a lead
 * read (fail closed: the row is written before anything is sent). Spam is never delivered.
 */
import { describe, expect, it } from "vitest";
import { contentDbOf } from "../support/content-groups";
import { auditRows, contactValues, createForm, formsSite, submit } from "../support/leads-helpers";
import {
  createWebhook,
  eventually,
  inbox,
  payloads,
  received,
  trustSecrets,
} from "../support/webhook-helpers";

describe("lead.created webhooks", () => {
  it("a clean lead reaches the subscribed webhook, signed, and the delivery is audited with the webhook's creator", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    const { box, url } = inbox();
    const hook = await createWebhook(site, { url, events: ["lead.created"] });
    await trustSecrets(box, [hook.secret]);
    const values = contactValues();
    expect((await submit(site, form.id, values)).status).toBe(202);
    const got = await eventually(
      () => received(box),
      (ds) => ds.length >= 1,
    );
    expect(got[0]!.verified).toBe(true);
    const [event] = payloads(got);
    expect(event).toMatchObject({ type: "lead.created", data: { site_id: site.id, form_id: form.id } });
    expect(event!.data.fields).toMatchObject({ email: values.email });
    const audit = (await auditRows(site.id)).filter((r) => r.action === "leads.webhook");
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_type: "webhook",
      actor_id: hook.id,
      actor_user_id: `user-${site.id}`,
      resource_ids: [event!.data.lead_id],
    });
  });

  it("spam is not delivered; a webhook without an accountable creator never receives leads", async () => {
    const site = await formsSite();
    const form = await createForm(site);
    const a = inbox();
    const orphan = await createWebhook(site, { url: a.url, events: ["lead.created"] });
    await (await contentDbOf(site.id))
      .prepare("UPDATE webhooks SET created_by = NULL WHERE id = ?")
      .bind(orphan.id)
      .run();
    const b = inbox();
    const accountable = await createWebhook(site, { url: b.url, events: ["lead.created"] });
    // b verifies the signature and answers 204: an unverified delivery would be refused (401) and retried
    // at once, so b would count the retries of one delivery.
    await trustSecrets(b.box, [accountable.secret]);
    // A honeypot hit is spam: stored, never announced.
    expect((await submit(site, form.id, { ...contactValues(), website_url: "x", _hp: "bot" })).status).toBe(
      202,
    );
    expect((await submit(site, form.id, contactValues())).status).toBe(202);
    const got = await eventually(
      () => received(b.box),
      (ds) => ds.length >= 1,
    );
    expect(got).toHaveLength(1);
    expect(await received(a.box)).toEqual([]);
  });
});

/**
 * The credential rule (docs/decisions/grant-endings.md), as an attacker would try it, through the gateway and the real Workers: an administrator
 * mints a `ck_` key and registers a webhook (posts and leads), then is removed, demoted, or leaves. What
 * they created ends with the grant that let them create it: the key answers 401 at once, the webhook hears
 * nothing more (no `post.published`, no `lead.created`), the stale edge context mints nothing new, and the
 * owners are told. Another organization's site (a tenant wall) and a site the person still owns keep theirs.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { freshIp } from "../support/identity-helpers";
import {
  call,
  createOrg,
  createSite,
  joinSiteByInvitation,
  outboxCode,
  type Session,
  verifiedUser,
} from "../support/platform";
import { eventually, inbox, payloads, received, trustSecrets } from "../support/webhook-helpers";

const EVENTS = ["post.published", "lead.created"];

async function addToOrg(owner: Session, orgId: string, member: Session, role: string) {
  const added = await call("POST", `/api/v1/auth/orgs/${orgId}/members`, {
    token: owner.access_token,
    body: { email: member.user.email, role },
  });
  expect(added.status).toBe(201);
}

async function mintKey(token: string, siteId: string, name: string) {
  const key = await call<{ id: string; key: string }>("POST", `/api/v1/sites/${siteId}/api-keys`, {
    token,
    body: { name, kind: "secret", scopes: ["posts:write"] },
  });
  expect(key.status).toBe(201);
  return key.body;
}

async function hook(token: string, siteId: string) {
  const { box, url } = inbox();
  const made = await call<{ id: string; secret: string }>("POST", `/api/v1/sites/${siteId}/webhooks`, {
    token,
    body: { url, events: EVENTS },
  });
  expect(made.status).toBe(201);
  await trustSecrets(box, [made.body.secret]);
  return { id: made.body.id, box };
}

const publish = (key: string, title: string) =>
  call<{ id: string }>("POST", "/v1/posts", { token: key, body: { title, status: "published" } });

const types = async (box: string) => payloads(await received(box)).map((p) => p.type);

/** The forms app, a contact form, and a visitor's form token (a clean lead needs it to be 3 s old). */
async function contactForm(owner: Session, siteId: string) {
  const token = owner.access_token;
  const on = await call("PUT", `/api/v1/sites/${siteId}/applets/forms`, { token, body: { enabled: true } });
  expect(on.status).toBe(200);
  const form = await call<{ id: string }>("POST", `/api/v1/sites/${siteId}/forms`, {
    token,
    body: { name: "Contact", fields: [{ name: "email", type: "email", required: true }] },
  });
  expect(form.status).toBe(201);
  const visitor = await call<{ token: string }>("GET", `/v1/sites/${siteId}/forms/${form.body.id}`);
  expect(visitor.status).toBe(200);
  return { formId: form.body.id, formToken: visitor.body.token, handedOutAt: Date.now() };
}

async function submitLead(siteId: string, form: Awaited<ReturnType<typeof contactForm>>) {
  const wait = form.handedOutAt + 3_500 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const sent = await call("POST", `/v1/sites/${siteId}/forms/${form.formId}/submissions`, {
    body: { email: "visitor@example.com", _token: form.formToken },
    headers: { origin: "https://visitor.example", "cf-connecting-ip": freshIp() },
  });
  expect(sent.status).toBe(202);
}

async function notices(address: string) {
  const outbox = await call<{ messages: { purpose: string; subject: string }[] }>(
    "GET",
    `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(address)}`,
  );
  return outbox.body.messages.filter((m) => m.purpose === "integrations_ended_notice");
}

/** A new account invited as `site_owner` of the site (through the invitation, as staff join a site). */
async function siteOwnerAccount(owner: Session, siteId: string): Promise<{ email: string; token: string }> {
  const { session, email } = await joinSiteByInvitation(owner.access_token, siteId, "owner", {
    "cf-connecting-ip": freshIp(),
  });
  return { email, token: session.access_token };
}

describe("a removed administrator's keys and webhooks end with the grant", () => {
  it("removal from one organization: key 401 at once, webhook silent (posts and leads), owners told; the other organization's site keeps its own", async () => {
    const owner = await verifiedUser();
    const other = await verifiedUser();
    const member = await verifiedUser();
    const org = await createOrg(owner.access_token, "Agency client");
    const otherOrg = await createOrg(other.access_token, "Another client");
    const site = await createSite(owner.access_token, org.id);
    const otherSite = await createSite(other.access_token, otherOrg.id);
    await addToOrg(owner, org.id, member, "org_admin");
    await addToOrg(other, otherOrg.id, member, "org_admin");

    const key = await mintKey(member.access_token, site.id, "member's autoposter");
    const memberHook = await hook(member.access_token, site.id);
    const otherKey = await mintKey(member.access_token, otherSite.id, "member's other autoposter");
    const otherHook = await hook(member.access_token, otherSite.id);
    const ownerKey = await mintKey(owner.access_token, site.id, "owner's own");
    const ownerHook = await hook(owner.access_token, site.id);
    const form = await contactForm(owner, site.id);
    expect((await publish(key.key, "Before")).status).toBe(201);
    await eventually(
      () => types(memberHook.box),
      (t) => t.length === 1,
    );

    const removed = await call("DELETE", `/api/v1/auth/orgs/${org.id}/members/${member.user.id}`, {
      token: owner.access_token,
    });
    expect(removed.status).toBe(204);

    // At once: the key writes nothing, and is not listed any more; the webhook is gone from the list.
    const refused = await publish(key.key, "After removal");
    expect(refused.status).toBe(401);
    const keys = await call<{ items: { id: string }[] }>("GET", `/api/v1/sites/${site.id}/api-keys`, {
      token: owner.access_token,
    });
    expect(keys.body.items.map((k) => k.id)).toEqual([ownerKey.id]);
    const hooks = await call<{ items: { id: string }[] }>("GET", `/api/v1/sites/${site.id}/webhooks`, {
      token: owner.access_token,
    });
    expect(hooks.body.items.map((h) => h.id)).toEqual([ownerHook.id]);
    // The member's session (memberships cached at the edge for up to 30 s) mints no new key or webhook.
    const backdoor = await call("POST", `/api/v1/sites/${site.id}/api-keys`, {
      token: member.access_token,
      body: { name: "backdoor", kind: "secret", scopes: ["posts:write"] },
    });
    expect(backdoor.status).toBe(404);
    const backdoorHook = await call("POST", `/api/v1/sites/${site.id}/webhooks`, {
      token: member.access_token,
      body: { url: inbox().url, events: EVENTS },
    });
    expect(backdoorHook.status).toBe(404);

    // The site goes on: the owner's post and a clean lead reach the owner's webhook, never the member's.
    expect((await publish(ownerKey.key, "After")).status).toBe(201);
    await submitLead(site.id, form);
    await eventually(
      () => types(ownerHook.box),
      (t) => t.includes("lead.created") && t.filter((x) => x === "post.published").length === 2,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await types(memberHook.box)).toEqual(["post.published"]);

    // Tenant wall: the member's key and webhook on the other organization's site are untouched.
    expect((await publish(otherKey.key, "Elsewhere")).status).toBe(201);
    await eventually(
      () => types(otherHook.box),
      (t) => t.length === 1,
    );

    // The owner is told at once (mail and the organization's security events); the other owner is not.
    expect((await notices(owner.user.email)).length).toBe(1);
    expect(await notices(other.user.email)).toEqual([]);
    const events = await call<{ items: { type: string; target: string; detail: string }[] }>(
      "GET",
      `/api/v1/auth/orgs/${org.id}/events?type=integrations_ended`,
      { token: owner.access_token },
    );
    expect(events.body.items).toEqual([
      expect.objectContaining({ target: member.user.id, detail: "1 API keys, 1 webhooks" }),
    ]);
  });

  it("a demotion ends them, a promotion does not, and leaving ends them", async () => {
    const owner = await verifiedUser();
    const demoted = await verifiedUser();
    const promoted = await verifiedUser();
    const leaver = await verifiedUser();
    const org = await createOrg(owner.access_token, "Roles");
    const site = await createSite(owner.access_token, org.id);
    for (const person of [demoted, promoted, leaver]) await addToOrg(owner, org.id, person, "org_admin");
    const demotedKey = await mintKey(demoted.access_token, site.id, "demoted");
    const promotedKey = await mintKey(promoted.access_token, site.id, "promoted");
    const leaverKey = await mintKey(leaver.access_token, site.id, "leaver");

    const demote = await call("PATCH", `/api/v1/auth/orgs/${org.id}/members/${demoted.user.id}`, {
      token: owner.access_token,
      body: { role: "org_member" },
    });
    expect(demote.status).toBe(200);
    const promote = await call("PATCH", `/api/v1/auth/orgs/${org.id}/members/${promoted.user.id}`, {
      token: owner.access_token,
      body: { role: "org_owner" },
    });
    expect(promote.status).toBe(200);
    const left = await call("DELETE", `/api/v1/auth/orgs/${org.id}/members/${leaver.user.id}`, {
      token: leaver.access_token,
    });
    expect(left.status).toBe(204);

    expect((await publish(demotedKey.key, "Demoted")).status).toBe(401);
    expect((await publish(leaverKey.key, "Left")).status).toBe(401);
    expect((await publish(promotedKey.key, "Promoted")).status).toBe(201);
    expect((await notices(owner.user.email)).length).toBe(2);
  });

  it("an invitation accepted over a membership that carried integrations ends them at once, not at the hourly run", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token, "Reinvited");
    const site = await createSite(owner.access_token, org.id);
    const staff = await siteOwnerAccount(owner, site.id);
    await siteOwnerAccount(owner, site.id); // a second site owner: the first may be demoted
    const key = await mintKey(staff.token, site.id, "before the new invitation");
    expect((await publish(key.key, "Before")).status).toBe(201);

    // The same address invited again as an editor (no integrations); the person accepts with the link.
    const invited = await call("POST", `/api/v1/auth/sites/${site.id}/invitations`, {
      token: owner.access_token,
      body: { email: staff.email, role: "editor" },
    });
    expect(invited.status).toBe(202);
    const outbox = await call<{ messages: { purpose: string; link: string | null }[] }>(
      "GET",
      `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(staff.email)}`,
    );
    // Newest first: the new invitation's link.
    const link = outbox.body.messages.find((m) => m.purpose === "invitation")!.link!;
    const accepted = await call("POST", "/api/v1/auth/invitations/accept", {
      body: { token: new URL(link).searchParams.get("token") },
      headers: { "cf-connecting-ip": freshIp() },
    });
    expect(accepted.status).toBe(200);

    expect((await publish(key.key, "After")).status).toBe(401);
    expect((await notices(owner.user.email)).length).toBe(1);
  });

  it("removal from a site ends what was made there; an organization removal keeps what the person still owns as a site owner", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token, "Sites");
    const kept = await createSite(owner.access_token, org.id);
    const ended = await createSite(owner.access_token, org.id);
    const person = await siteOwnerAccount(owner, kept.id);
    // A second site owner, so that the person is not the site's last owner (who never leaves).
    await siteOwnerAccount(owner, kept.id);
    const added = await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
      token: owner.access_token,
      body: { email: person.email, role: "org_admin" },
    });
    expect(added.status).toBe(201);
    const userId = (await call<{ id: string }>("GET", "/api/v1/auth/me", { token: person.token })).body.id;
    const keptKey = await mintKey(person.token, kept.id, "site owner's key");
    const endedKey = await mintKey(person.token, ended.id, "org admin's key");

    const removed = await call("DELETE", `/api/v1/auth/orgs/${org.id}/members/${userId}`, {
      token: owner.access_token,
    });
    expect(removed.status).toBe(204);
    expect((await publish(endedKey.key, "Org grant ended")).status).toBe(401);
    expect((await publish(keptKey.key, "Still the site's owner")).status).toBe(201);

    const siteRemoval = await call("DELETE", `/api/v1/auth/sites/${kept.id}/members/${userId}`, {
      token: owner.access_token,
    });
    expect(siteRemoval.status).toBe(204);
    expect((await publish(keptKey.key, "Site grant ended")).status).toBe(401);
  });

  it("an erased account's keys end with the memberships its erasure removes (identity's hourly run)", async () => {
    const owner = await verifiedUser();
    const leaving = await verifiedUser();
    const org = await createOrg(owner.access_token, "Erasure");
    const site = await createSite(owner.access_token, org.id);
    await addToOrg(owner, org.id, leaving, "org_admin");
    const key = await mintKey(leaving.access_token, site.id, "erased person's key");

    const path = "/api/v1/auth/account";
    expect((await call("DELETE", path, { token: leaving.access_token })).status).toBe(428);
    const code = await outboxCode(leaving.user.email, "sensitive_action");
    const requested = await call<{ erase_after: string }>("DELETE", path, {
      token: leaving.access_token,
      headers: { "x-step-up-code": code },
    });
    expect(requested.status).toBe(202);
    // The grace period: still a member, the key still writes.
    expect((await publish(key.key, "During the grace")).status).toBe(201);

    // Identity's cron through its service binding (workerd's Fetcher.scheduled), at a time past the grace.
    type Scheduled = { scheduled(o: { cron: string; scheduledTime: Date }): Promise<unknown> };
    const identity = (env as unknown as { IDENTITY: Scheduled }).IDENTITY;
    const pastGrace = Date.parse(requested.body.erase_after) + 24 * 3600_000;
    await identity.scheduled({ cron: "0 * * * *", scheduledTime: new Date(pastGrace) });
    expect((await publish(key.key, "After the erasure")).status).toBe(401);
    expect((await notices(owner.user.email)).length).toBe(1);
  });
});

/**
 * The credential rule for what an administrator sent and nobody took yet (issue 31; the matrix rows
 * `identity.invitation × member_removal` and `identity.transfer_offer × member_removal` found it): an
 * organization administrator invites an accomplice and offers a site to an organization of their own, then
 * is removed. The pending invitations and offers end with the `members:manage` that let them be sent, before
 * the removal answers; a role that keeps `members:manage`, a site the person still owns, and another
 * organization keep theirs; the owners read what ended in the organization's events.
 */
import { describe, expect, it } from "vitest";
import { freshIp } from "../support/identity-helpers";
import {
  call,
  createOrg,
  createSite,
  PASSWORD,
  type Session,
  uniqueEmail,
  verifiedUser,
} from "../support/platform";

async function addToOrg(owner: Session, orgId: string, member: Session, role: string) {
  const added = await call("POST", `/api/v1/auth/orgs/${orgId}/members`, {
    token: owner.access_token,
    body: { email: member.user.email, role },
  });
  expect(added.status).toBe(201);
}

/** An organization invitation of a new address sent by `by`; the invitee's link token. */
async function invite(by: Session, orgId: string): Promise<string> {
  const email = uniqueEmail("invitee");
  const sent = await call("POST", `/api/v1/auth/orgs/${orgId}/members`, {
    token: by.access_token,
    body: { email, role: "org_member" },
  });
  expect(sent.status).toBe(202);
  return tokenMailedTo(email);
}

/** A site invitation of a new address sent by `by`; the invitee's link token. */
async function inviteToSite(by: Session, siteId: string): Promise<string> {
  const email = uniqueEmail("site-invitee");
  const sent = await call("POST", `/api/v1/auth/sites/${siteId}/invitations`, {
    token: by.access_token,
    body: { email, role: "editor" },
  });
  expect(sent.status).toBe(202);
  return tokenMailedTo(email);
}

async function tokenMailedTo(email: string): Promise<string> {
  const outbox = await call<{ messages: { purpose: string; link: string | null }[] }>(
    "GET",
    `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(email)}`,
  );
  const link = outbox.body.messages.find((m) => m.purpose === "invitation")!.link!;
  return new URL(link).searchParams.get("token")!;
}

const accept = async (token: string) =>
  (
    await call("POST", "/api/v1/auth/invitations/accept", {
      body: { token, password: PASSWORD },
      headers: { "cf-connecting-ip": freshIp() },
    })
  ).status;

async function offer(by: Session, fromOrgId: string, siteId: string, toOrgSlug: string): Promise<string> {
  const made = await call<{ id: string }>("POST", `/api/v1/auth/orgs/${fromOrgId}/transfers`, {
    token: by.access_token,
    body: { site_id: siteId, to_org_slug: toOrgSlug, mode: "transfer" },
  });
  expect(made.status).toBe(200);
  return made.body.id;
}

describe("what a removed administrator sent and nobody took yet ends with the grant", () => {
  it("removal revokes the person's pending invitations and cancels their transfer offers before it answers; another organization's stay; the owners read it in the events", async () => {
    const owner = await verifiedUser();
    const other = await verifiedUser();
    const admin = await verifiedUser();
    const accomplice = await verifiedUser();
    const org = await createOrg(owner.access_token, "Victim");
    const otherOrg = await createOrg(other.access_token, "Elsewhere");
    const theirs = await createOrg(accomplice.access_token, "The accomplice's");
    const site = await createSite(owner.access_token, org.id);
    await addToOrg(owner, org.id, admin, "org_admin");
    await addToOrg(other, otherOrg.id, admin, "org_admin");

    const orgInvitation = await invite(admin, org.id);
    const siteInvitation = await inviteToSite(admin, site.id);
    const elsewhere = await invite(admin, otherOrg.id);
    const offered = await offer(admin, org.id, site.id, theirs.slug);

    const removed = await call("DELETE", `/api/v1/auth/orgs/${org.id}/members/${admin.user.id}`, {
      token: owner.access_token,
    });
    expect(removed.status).toBe(204);

    expect(await accept(orgInvitation)).toBe(404);
    expect(await accept(siteInvitation)).toBe(404);
    const taken = await call<{ code: string }>(
      "POST",
      `/api/v1/auth/orgs/${theirs.id}/transfers/${offered}/accept`,
      {
        token: accomplice.access_token,
      },
    );
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe("NOT_PENDING");
    const site_ = await call<{ org_id: string }>("GET", `/api/v1/sites/${site.id}`, {
      token: owner.access_token,
    });
    expect(site_.body.org_id).toBe(org.id);

    // Tenant wall: the person's invitation in the organization they still administer works.
    expect(await accept(elsewhere)).toBe(200);

    const events = await call<{ items: { type: string; target: string; detail: string }[] }>(
      "GET",
      `/api/v1/auth/orgs/${org.id}/events`,
      { token: owner.access_token },
    );
    const ended = events.body.items.filter(
      (e) =>
        e.target === admin.user.id && (e.type === "invitation_revoked" || e.type === "transfer_cancelled"),
    );
    expect(ended.map((e) => [e.type, e.detail]).sort()).toEqual([
      ["invitation_revoked", "2 pending, sent by a former administrator"],
      ["transfer_cancelled", "1 pending, offered by a former administrator"],
    ]);
  });

  it("a role that keeps members:manage keeps them; a demotion ends them, except a site invitation of a site the person still owns", async () => {
    const owner = await verifiedUser();
    const promoted = await verifiedUser();
    const demoted = await verifiedUser();
    const org = await createOrg(owner.access_token, "Roles");
    const site = await createSite(owner.access_token, org.id);
    const owned = await createSite(owner.access_token, org.id);
    await addToOrg(owner, org.id, promoted, "org_admin");
    await addToOrg(owner, org.id, demoted, "org_admin");
    // The demoted administrator also owns one site (a site membership of its own).
    const asSiteOwner = await call("POST", `/api/v1/auth/sites/${owned.id}/invitations`, {
      token: owner.access_token,
      body: { email: demoted.user.email, role: "owner" },
    });
    expect(asSiteOwner.status).toBe(202);
    expect(await accept(await tokenMailedTo(demoted.user.email))).toBe(200);

    const keptByPromotion = await invite(promoted, org.id);
    const endedByDemotion = await invite(demoted, org.id);
    const siteEnded = await inviteToSite(demoted, site.id);
    const siteKept = await inviteToSite(demoted, owned.id);

    for (const [who, role] of [
      [promoted, "org_owner"],
      [demoted, "org_member"],
    ] as const) {
      const changed = await call("PATCH", `/api/v1/auth/orgs/${org.id}/members/${who.user.id}`, {
        token: owner.access_token,
        body: { role },
      });
      expect(changed.status).toBe(200);
    }

    expect(await accept(keptByPromotion)).toBe(200);
    expect(await accept(endedByDemotion)).toBe(404);
    expect(await accept(siteEnded)).toBe(404);
    expect(await accept(siteKept)).toBe(200);
  });
});

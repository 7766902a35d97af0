/**
 * The development mailbox (`/__dev/mail`, issue 36) in Chromium, as a developer opens it: a sign-up's mail
 * and an invitation whose organization name carries markup are listed newest first, each HTML body shown in
 * its sandboxed frame, and nothing in a mail runs (no dialog, no script, the markup shown as text). The
 * screenshot is the one in docs/screenshots/dev-mail.png.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freshClientIp,
  launchChromium,
  newContext,
  outboxMessage,
  platform,
  screenshot,
} from "../support/browser";

async function post<T>(path: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(`${platform().urls.gateway}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "cf-connecting-ip": freshClientIp(),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path} -> ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 120_000);
afterAll(async () => browser?.close());

describe("the development mailbox", () => {
  it("shows each mail's HTML in a sandboxed frame, newest first, and runs nothing a mail carries", async () => {
    const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const owner = `mailbox-${tag}@browser.example`;
    await post("/api/v1/auth/signup", { email: owner, password: `Mailbox-${tag}-passphrase` });
    const { code } = await outboxMessage(owner, "email_verify");
    const { access_token: token } = await post<{ access_token: string }>(
      "/api/v1/auth/email/verify/confirm",
      {
        email: owner,
        code,
      },
    );
    const evil = `<img src=x onerror=alert(1)>Evil "Org"`;
    const org = await post<{ id: string }>("/api/v1/auth/orgs", { name: evil, slug: `mb-${tag}` }, token);
    const invited = `invited-${tag}@browser.example`;
    await post(`/api/v1/auth/orgs/${org.id}/members`, { email: invited, role: "org_member" }, token);

    const context = await newContext(browser, { clientIp: false });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const answer = await page.goto(`${platform().urls.gateway}/__dev/mail`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()["content-security-policy"]).toMatch(/default-src 'none'/);

    const bodyText = await page.textContent("body");
    const invitedAt = bodyText!.indexOf(invited);
    const ownerAt = bodyText!.indexOf(owner);
    expect(invitedAt).toBeGreaterThan(-1);
    expect(ownerAt).toBeGreaterThan(invitedAt); // newest first
    // Every mail body sits in a frame without scripts.
    const sandboxes = await page.$$eval("iframe", (frames) => frames.map((f) => f.getAttribute("sandbox")));
    expect(sandboxes.length).toBeGreaterThan(0);
    for (const sandbox of sandboxes) expect(sandbox ?? "").not.toContain("allow-scripts");
    // The invitation's frame shows the organization's name as text; its markup made no element.
    const frameTexts = await Promise.all(
      page
        .frames()
        .filter((f) => f !== page.mainFrame())
        .map(async (f) => ({
          text: await f.textContent("body"),
          imgs: await f.$$eval("img", (i) => i.length),
        })),
    );
    const withEvil = frameTexts.find((f) => f.text?.includes('Evil "Org"'));
    expect(withEvil?.text).toContain("<img src=x onerror=alert(1)>");
    expect(withEvil?.imgs).toBe(0);
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
    await page.setViewportSize({ width: 1100, height: 900 });
    await screenshot(page, "dev-mail");
    await context.close();
  });
});

/**
 * The account page's parts for the account's whole life (issue 24 §4) in a real Chromium: the export
 * downloads one JSON file after the step-up; deleting asks for the confirmation box and the step-up,
 * then shows the erase date and signs the browser out; the hosted restore page keeps the account with
 * the e-mailed code, after which the password signs in again. Sessions are named by browser and system.
 */
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  browserPerTest,
  freshEmail,
  newCode,
  newContext,
  platform,
  sent,
  signUpInPage,
  watchPageErrors,
} from "../support/browser";

const PASSWORD = "correct-horse-battery-staple-leaving-42";

const browser = browserPerTest();

const identity = () => platform().urls.identity;
async function signedIn(tag: string) {
  const context = await newContext(browser());
  const page = await context.newPage();
  const errors = watchPageErrors(page);
  const email = freshEmail(tag);
  await signUpInPage(page, email, PASSWORD);
  await page.goto(`${identity()}/auth/account`);
  await page.locator("#account").waitFor({ state: "visible" });
  return { page, errors, email };
}

const statusText = async (page: Page) => (await page.locator("#status").textContent()) ?? "";

async function stepUp(page: Page, section: string, email: string, before: number) {
  await page.locator(`#${section} #stepup`).waitFor({ state: "visible" });
  await page.getByLabel("Confirmation code").fill(await newCode(email, "sensitive_action", before));
  await page.locator("#stepup").getByRole("button", { name: "Confirm" }).click();
}

describe("account page: the account's whole life", () => {
  it("names sessions by browser and system, and downloads the account's data after the step-up", async () => {
    const { page, errors, email } = await signedIn("export");
    const table = () => page.locator("#session-table tbody").textContent();
    await expect.poll(table).toMatch(/\w+ on (Linux|macOS|Windows|Other)/);
    expect(await table()).not.toContain("Mozilla/5.0");

    const before = await sent(email, "sensitive_action");
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download my data" }).click();
    await stepUp(page, "data", email, before);
    const file = await download;
    expect(file.suggestedFilename()).toBe("account-export.json");
    const doc = JSON.parse(readFileSync((await file.path())!, "utf8")) as {
      format: string;
      email_addresses: { address: string }[];
    };
    expect(doc.format).toBe("site-platform.account-export/1");
    expect(doc.email_addresses.map((a) => a.address)).toEqual([email]);
    await expect.poll(() => statusText(page)).toMatch(/downloaded/);
    expect(errors).toEqual([]);
  });

  it("deletes with the box ticked and the step-up, then the restore page keeps the account", async () => {
    const { page, errors, email } = await signedIn("leaving");
    expect(await page.locator("#delete-grace").textContent()).toContain("30 days");
    await page.getByRole("button", { name: "Delete my account" }).click();
    await expect.poll(() => statusText(page)).toMatch(/Tick the box/);

    await page.getByLabel(/I understand that my account will be erased/).check();
    const before = await sent(email, "sensitive_action");
    await page.getByRole("button", { name: "Delete my account" }).click();
    await stepUp(page, "delete-account", email, before);
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/will be erased after/);
    expect(await page.locator("#account").isHidden()).toBe(true);

    // Signing in now answers the pending deletion (after the password), with the way back.
    const refused = await fetch(`${identity()}/api/v1/auth/login/start`, {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": "203.0.113.77" },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe("ACCOUNT_PENDING_DELETION");

    await page.goto(`${identity()}/auth/sign-in`);
    await page.getByRole("link", { name: /Keep my account/ }).click();
    await page.waitForURL((url) => url.pathname === "/auth/account/restore");
    const codes = await sent(email, "account_restore");
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("button", { name: "E-mail me a code" }).click();
    await page.getByLabel("Code from the e-mail").fill(await newCode(email, "account_restore", codes));
    await page.getByRole("button", { name: "Keep my account" }).click();
    await expect.poll(() => statusText(page)).toMatch(/will not be deleted/);

    const back = await fetch(`${identity()}/api/v1/auth/login/start`, {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": "203.0.113.78" },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(back.status).not.toBe(403);
    expect(errors).toEqual([]);
  });
});

/**
 * Whole journeys a person makes through the hosted pages, page after page in one browser profile, with
 * nothing done behind the pages' back: sign up and confirm, enrol an authenticator app on the account
 * page, sign out, sign in with password and TOTP; then add a passkey (Chromium's virtual authenticator),
 * sign out and sign in with the passkey. Each page is checked for CSP refusals and script errors.
 */
import { Secret, TOTP } from "otpauth";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  launchChromium,
  newContext,
  outboxMessage,
  platform,
  virtualAuthenticator,
  watchPageErrors,
} from "../support/browser";

const PASSWORD = "a-long-and-unusual-passphrase-77";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

function totpAt(secret: string, offsetSteps: number): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" });
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

async function onAccountPage(page: Page, email: string) {
  await page.waitForURL((url) => url.pathname === "/auth/account");
  await page.locator("#account").waitFor({ state: "visible" });
  await expect.poll(() => page.locator("#whoami").textContent()).toBe(email);
}

async function signOut(page: Page) {
  await page.locator(".whoami").getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL((url) => url.pathname === "/auth/sign-in");
}

async function enterPassword(page: Page, email: string) {
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
}

describe("a person's journey through the hosted pages", () => {
  it("sign up, TOTP enrolment, sign in with TOTP; passkey registration, sign in with the passkey", async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    const email = `journey-${Date.now().toString(36)}@example.com`;

    // Sign up and confirm the e-mailed code: the confirmation signs in and opens the account page.
    await page.goto(`${platform().urls.gateway}/auth/sign-up`);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL((url) => url.pathname === "/auth/confirm");
    const { code } = await outboxMessage(email, "email_verify");
    await page.getByLabel("Code from the e-mail").fill(code ?? "");
    await page.getByRole("button", { name: "Confirm" }).click();
    await onAccountPage(page, email);

    // Enrol an authenticator app on the account page.
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    await page.locator("#totp-enroll").waitFor({ state: "visible" });
    const secret = ((await page.locator("#totp-secret").textContent()) ?? "").replace(/\s+/g, "");
    await page.getByLabel("Code from the authenticator app").fill(totpAt(secret, 0));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.locator("#recovery-shown").waitFor({ state: "visible" });
    await page.getByRole("button", { name: "I have saved them" }).click();
    expect(await page.locator("#totp-state").textContent()).toMatch(/^On/);

    // Sign out, then sign in with the password and the app's next code.
    await signOut(page);
    await enterPassword(page, email);
    await page.locator("#sf-totp").waitFor();
    await page.getByLabel("Code from your authenticator app").fill(totpAt(secret, 1));
    await page.locator("#sf-totp").getByRole("button", { name: "Verify" }).click();
    await onAccountPage(page, email);

    // Add a passkey held by Chromium's virtual authenticator.
    const { cdp, authenticatorId } = await virtualAuthenticator(context, page);
    await page.getByLabel("Name for the new passkey (optional)").fill("Journey laptop");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    // The account has a factor (the app), so a new one costs the step-up: the code mailed to the primary.
    await page.locator("#passkeys #stepup").waitFor({ state: "visible" });
    const stepUp = await outboxMessage(email, "sensitive_action");
    await page.getByLabel("Confirmation code").fill(stepUp.code ?? "");
    await page.locator("#stepup").getByRole("button", { name: "Confirm" }).click();
    await expect.poll(() => page.locator("#passkey-table").textContent()).toContain("Journey laptop");
    const held = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(held.credentials).toHaveLength(1);

    // Sign out, then sign in with the passkey as the second factor.
    await signOut(page);
    await enterPassword(page, email);
    await page.locator("#sf-totp").waitFor();
    await page.locator('[data-switch="passkey"]').click();
    const passkeyForm = page.locator("#sf-passkey");
    await passkeyForm.waitFor();
    const verified = page.waitForResponse((res) => res.url().endsWith("/api/v1/auth/login/mfa/verify"));
    await passkeyForm.getByRole("button", { name: "Use a passkey" }).click();
    expect((await verified).status()).toBe(200);
    await onAccountPage(page, email);
    // The authenticator signed: its counter moved past the registration.
    const after = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(after.credentials[0]?.signCount ?? 0).toBeGreaterThan(held.credentials[0]?.signCount ?? 0);

    expect(errors).toEqual([]);
    await context.close();
  });
});

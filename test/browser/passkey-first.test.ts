import { describe, expect, it } from "vitest";
import {
  browserPerFile,
  outboxMessage,
  platform,
  registerPasskeyInPage,
  virtualAuthenticator,
} from "../support/browser";
import { authPost } from "../support/browser-api";

const PASSWORD = "a-long-and-unusual-passphrase-42";
const chromium = browserPerFile();

const gateway = () => platform().urls.gateway;

const openPage = (path: string) => chromium.page(`${gateway()}${path}`);

describe("passkey-first sign-in", () => {
  it("a synced passkey signs in on a fresh browser profile while the password is locked", async () => {
    const email = `passkey-first-${Date.now().toString(36)}@example.com`;
    expect((await authPost("/signup", { email, password: PASSWORD })).status).toBe(202);
    const { code } = await outboxMessage(email, "email_verify");
    const confirmed = await authPost("/email/verify/confirm", { email, code });
    expect(confirmed.status).toBe(200);
    const token = confirmed.body.access_token as string;

    // Profile 1 registers a discoverable passkey through the account API ceremony, with the step-up code
    // mailed to the primary (issue 31: every passkey costs it, the account's first included).
    const first = await openPage("/auth/sign-in");
    const one = await virtualAuthenticator(first.page.context(), first.page);
    expect((await authPost("/mfa/passkey/register/begin", {}, { token })).status).toBe(428);
    const stepUp = await outboxMessage(email, "sensitive_action");
    const registered = await registerPasskeyInPage(first.page, token, stepUp.code);
    expect(registered.status).toBe(201);
    expect(registered.body.discoverable).toBe(true);
    const { credentials } = await one.cdp.send("WebAuthn.getCredentials", {
      authenticatorId: one.authenticatorId,
    });
    expect(credentials).toHaveLength(1);

    // A stranger locks the password.
    let locked = 0;
    for (let i = 0; i < 12 && locked === 0; i += 1) {
      const res = await authPost("/login/start", { email, password: "not-the-password-at-all" });
      if (res.status === 423) locked = 1;
    }
    expect(locked).toBe(1);

    // Profile 2: a fresh context; its authenticator holds the synced copy of the passkey.
    const second = await openPage("/auth/sign-in");
    const two = await virtualAuthenticator(second.page.context(), second.page);
    await two.cdp.send("WebAuthn.addCredential", {
      authenticatorId: two.authenticatorId,
      credential: credentials[0]!,
    });
    const finished = second.page.waitForResponse((res) =>
      res.url().endsWith("/api/v1/auth/login/passkey/finish"),
    );
    await second.page.getByRole("button", { name: "Sign in with a passkey" }).click();
    expect((await finished).status()).toBe(200);
    await second.page.waitForURL((url) => url.pathname === "/auth/account");
    await expect
      .poll(async () => (await second.page.locator("#passkey-table").textContent()) ?? "")
      .toContain("Yes");
    expect(second.errors).toEqual([]);
    expect(first.errors).toEqual([]);
  });
});

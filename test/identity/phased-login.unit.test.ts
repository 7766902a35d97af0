import { describe, expect, it } from "vitest";
import type { Env } from "../../src/identity/core/worker-env";
import type { LoginMethod } from "../../src/identity/login/login-challenge";
import { deliveryMethod, type EnrolledFactors, loginMethods } from "../../src/identity/login/phased-login";

const none: EnrolledFactors = { totp: false, passkeys: false, phone: false, recovery: false };

describe("phased login: the methods a challenge offers", () => {
  it("offers every enrolled method in the fixed order totp, email, sms, passkey, recovery_code", () => {
    expect(loginMethods({ totp: true, passkeys: true, phone: true, recovery: true })).toEqual([
      "totp",
      "email",
      "sms",
      "passkey",
      "recovery_code",
    ]);
  });

  it("always offers e-mail once TOTP or a passkey is enrolled", () => {
    expect(loginMethods({ ...none, totp: true })).toEqual(["totp", "email"]);
    expect(loginMethods({ ...none, passkeys: true })).toEqual(["email", "passkey"]);
  });

  it("answers 428 MFA_NOT_ENROLLED without TOTP or a passkey, whatever else the account has", () => {
    for (const factors of [none, { ...none, phone: true, recovery: true }]) {
      expect(() => loginMethods(factors)).toThrow(
        expect.objectContaining({ status: 428, code: "MFA_NOT_ENROLLED" }),
      );
    }
  });
});

describe("phased login: the methods with a delivery step", () => {
  const passkeysOn = { PASSKEYS_ENABLED: "true" } as Env;
  const passkeysOff = { PASSKEYS_ENABLED: "false" } as Env;

  it("delivers e-mail and SMS codes, and passkey options while passkeys are on", () => {
    for (const method of ["email", "sms", "passkey"] as const) {
      expect(deliveryMethod(passkeysOn, method)).toBe(method);
    }
  });

  it("answers 400 METHOD_NOT_AVAILABLE for totp and recovery_code (nothing to deliver)", () => {
    for (const method of ["totp", "recovery_code"] as LoginMethod[]) {
      expect(() => deliveryMethod(passkeysOn, method)).toThrow(
        expect.objectContaining({
          status: 400,
          code: "METHOD_NOT_AVAILABLE",
          detail: `Method ${method} needs no delivery step.`,
        }),
      );
    }
  });

  it("answers 501 PASSKEY_DISABLED for a passkey while passkeys are off; codes still go out", () => {
    expect(() => deliveryMethod(passkeysOff, "passkey")).toThrow(
      expect.objectContaining({ status: 501, code: "PASSKEY_DISABLED" }),
    );
    expect(deliveryMethod(passkeysOff, "email")).toBe("email");
  });
});

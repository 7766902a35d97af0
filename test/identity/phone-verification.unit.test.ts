import { describe, expect, it } from "vitest";
import { parsePhone } from "../../src/identity/factors/phone-verification";

describe("parsePhone", () => {
  it("keeps an E.164 number, dropping spaces, dashes and parentheses", () => {
    expect(parsePhone("+14155550123")).toBe("+14155550123");
    expect(parsePhone("+1 (415) 555-0123")).toBe("+14155550123");
  });

  it("answers 400 INVALID_PHONE for anything else, before any provider call", () => {
    for (const raw of ["4155550123", "+04155550123", "+1415", "+1415555012345678", "+1 415 555 O123", ""]) {
      expect(() => parsePhone(raw), raw).toThrow(
        expect.objectContaining({ status: 400, code: "INVALID_PHONE" }),
      );
    }
  });
});

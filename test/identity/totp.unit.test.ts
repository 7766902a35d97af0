import { describe, expect, it } from "vitest";
import { base32Decode, base32Encode, hotp, matchTotp, totpAt } from "../../src/identity/factors/totp";

const enc = new TextEncoder();
// RFC 6238 Appendix B: the seeds are the ASCII strings below (20, 32 and 64 bytes), 8 digits.
const seeds = {
  "SHA-1": enc.encode("12345678901234567890"),
  "SHA-256": enc.encode("12345678901234567890123456789012"),
  "SHA-512": enc.encode("1234567890123456789012345678901234567890123456789012345678901234"),
} as const;
const vectors: [number, string, string, string][] = [
  [59, "94287082", "46119246", "90693936"],
  [1111111109, "07081804", "68084774", "25091201"],
  [1111111111, "14050471", "67062674", "99943326"],
  [1234567890, "89005924", "91819424", "93441116"],
  [2000000000, "69279037", "90698825", "38618901"],
  [20000000000, "65353130", "77737706", "47863826"],
];

describe("TOTP (RFC 6238)", () => {
  for (const [t, sha1, sha256, sha512] of vectors) {
    it(`matches the RFC test vectors at T=${t}`, async () => {
      expect(await totpAt(seeds["SHA-1"], t, 8, "SHA-1")).toBe(sha1);
      expect(await totpAt(seeds["SHA-256"], t, 8, "SHA-256")).toBe(sha256);
      expect(await totpAt(seeds["SHA-512"], t, 8, "SHA-512")).toBe(sha512);
    });
  }

  it("matches the RFC 4226 HOTP vectors (6 digits)", async () => {
    const expected = [
      "755224",
      "287082",
      "359152",
      "969429",
      "338314",
      "254676",
      "287922",
      "162583",
      "399871",
      "520489",
    ];
    for (let i = 0; i < expected.length; i++) expect(await hotp(seeds["SHA-1"], i)).toBe(expected[i]);
  });

  it("accepts one step of drift either way and nothing beyond", async () => {
    const key = seeds["SHA-1"];
    const now = 1_700_000_000;
    const step = Math.floor(now / 30);
    expect(await matchTotp(key, await totpAt(key, now), now)).toBe(step);
    expect(await matchTotp(key, await totpAt(key, now - 30), now)).toBe(step - 1);
    expect(await matchTotp(key, await totpAt(key, now + 30), now)).toBe(step + 1);
    expect(await matchTotp(key, await totpAt(key, now - 60), now)).toBeNull();
    expect(await matchTotp(key, await totpAt(key, now + 60), now)).toBeNull();
    expect(await matchTotp(key, "12345", now)).toBeNull();
  });

  it("base32 round-trips (RFC 4648 vector)", () => {
    expect(base32Encode(enc.encode("foobar"))).toBe("MZXW6YTBOI");
    expect(new TextDecoder().decode(base32Decode("MZXW6YTBOI======"))).toBe("foobar");
  });
});

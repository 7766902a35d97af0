import { describe, expect, it } from "vitest";
import {
  hashPassword,
  hashPasswordWith,
  SCRYPT_PARAMS,
  verifyPassword,
} from "../../src/identity/signup/password";
import { expectIndistinguishableTimes } from "../support/timing";

describe("password hashing (scrypt, PHC string)", () => {
  it("stores a PHC string with its parameters and a random salt", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).toMatch(/^\$scrypt\$ln=14,r=8,p=5\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
  });

  it("verifies the right password and refuses a wrong one", async () => {
    const h = await hashPassword("correct horse battery");
    expect(await verifyPassword("correct horse battery", h)).toEqual({ ok: true, needsRehash: false });
    expect((await verifyPassword("correct horse batterY", h)).ok).toBe(false);
  });

  it("normalizes Unicode (NFKC) so the same password typed differently matches", async () => {
    const h = await hashPassword("caf\u00e9-password-1");
    expect((await verifyPassword("cafe\u0301-password-1", h)).ok).toBe(true);
  });

  it("asks for a rehash when the stored parameters differ from the current ones", async () => {
    const old = await hashPasswordWith("correct horse battery", { ln: 12, r: 8, p: 1 });
    expect(await verifyPassword("correct horse battery", old)).toEqual({ ok: true, needsRehash: true });
    expect(await verifyPassword("wrong", old)).toEqual({ ok: false, needsRehash: false });
  });

  it("refuses without a hash (unknown account) and garbage hashes", async () => {
    expect((await verifyPassword("anything", null)).ok).toBe(false);
    expect((await verifyPassword("anything", "$scrypt$ln=99,r=8,p=1$AA$AA")).ok).toBe(false);
    expect((await verifyPassword("anything", "plaintext")).ok).toBe(false);
  });

  it("costs the same for the dummy path as for a real hash (measured)", async () => {
    const h = await hashPassword("correct horse battery");
    const time = async (f: () => Promise<unknown>) => {
      const t = performance.now();
      await f();
      return performance.now() - t;
    };
    const real: number[] = [];
    const dummy: number[] = [];
    for (let i = 0; i < 15; i++) {
      const pair = [
        async () => real.push(await time(() => verifyPassword("wrong password", h))),
        async () => dummy.push(await time(() => verifyPassword("wrong password", null))),
      ];
      if (i % 2) pair.reverse();
      for (const run of pair) await run();
    }
    // In workerd the clock only advances on I/O, so equal zero series are possible; they pass trivially.
    expectIndistinguishableTimes(
      `scrypt ln=${SCRYPT_PARAMS.ln} r=${SCRYPT_PARAMS.r} p=${SCRYPT_PARAMS.p}: real vs dummy hash`,
      real,
      dummy,
      { floorMs: 5 },
    );
  });
});

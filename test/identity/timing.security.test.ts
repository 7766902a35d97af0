/**
 * The timing and enumeration tests: signup's equal cost and login refusals' equal timing. They run in the
 * `timing` project (vitest.config.ts), at the production scrypt cost (no TEST_SCRYPT_COST binding), after
 * every other project has finished, so nothing else competes for the two cores while they sample.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/identity/core/worker-env";
import { activationStatements, pendingAccountStatements } from "../../src/identity/signup/accounts-store";
import { hashPassword, passwordCost, SCRYPT_PARAMS } from "../../src/identity/signup/password";
import {
  call,
  callTimed,
  freshEmail,
  freshIp,
  GOOD_PASSWORD,
  signupVerified,
} from "../support/identity-helpers";
import { expectIndistinguishableTimes } from "../support/timing";

const e = env as unknown as Env;

function login(email: string, password: string, totp_code?: string, ip = freshIp()) {
  return call("POST", "/api/v1/auth/login", { body: { email, password, totp_code }, ip });
}

describe("the timing project", () => {
  it("hashes at the production cost (no TEST_SCRYPT_COST binding)", async () => {
    expect((e as unknown as Record<string, unknown>).TEST_SCRYPT_COST).toBeUndefined();
    await call("GET", "/health");
    expect(passwordCost()).toEqual(SCRYPT_PARAMS);
  });
});

describe("login: enumeration rules", () => {
  it("unknown e-mail and wrong password take statistically indistinguishable time (30 interleaved pairs)", {
    timeout: 180_000,
  }, async () => {
    // Six accounts and six unknown addresses, five wrong attempts each: the guard lets every one of them
    // run the full check, and both series touch equally warm guard objects.
    const accounts: string[] = [];
    for (let i = 0; i < 6; i++) accounts.push((await signupVerified()).email);
    const ghosts = Array.from({ length: 6 }, () => freshEmail("ghost"));
    const wrongTimes: number[] = [];
    const unknownTimes: number[] = [];
    for (let i = 0; i < 30; i++) {
      // Interleaved, alternating which goes first, so drift of the machine affects both series alike.
      const runs = [
        async () => {
          const t = performance.now();
          const res = await login(accounts[i % 6]!, `wrong-password-${i}-xx`, "123456");
          wrongTimes.push(performance.now() - t);
          expect(res.status).toBe(401);
        },
        async () => {
          const t = performance.now();
          const res = await login(ghosts[i % 6]!, `wrong-password-${i}-xx`, "123456");
          unknownTimes.push(performance.now() - t);
          expect(res.status).toBe(401);
        },
      ];
      if (i % 2) runs.reverse();
      for (const run of runs) await run();
    }
    expectIndistinguishableTimes("login: wrong password vs unknown e-mail", wrongTimes, unknownTimes);
  });
});

describe("POST /auth/signup: equal cost", () => {
  it("a new and a registered e-mail are answered in the same time (30 interleaved pairs, statistically indistinguishable; the address-dependent work runs after the answer)", {
    timeout: 120_000,
  }, async () => {
    // Registered straight in the store, not through the signup route: an address that never came through
    // signup, like the new ones, so both series meet the per-address quota's storage for the first time
    // (a warm quota object answers a few ms sooner, which would be the test's artefact, not the service's).
    const passwordHash = await hashPassword(GOOD_PASSWORD);
    const registered: string[] = [];
    for (let i = 0; i < 30; i++) {
      const address = freshEmail("registered");
      const account = pendingAccountStatements(e.DB, address, passwordHash);
      await e.DB.batch([...account.statements, ...activationStatements(e.DB, account.userId, address)]);
      registered.push(address);
    }
    const fresh: number[] = [];
    const known: number[] = [];
    for (let i = 0; i < 30; i++) {
      const runs = [
        async () => {
          const { res, ms } = await callTimed("POST", "/api/v1/auth/signup", {
            body: { email: freshEmail("cost"), password: GOOD_PASSWORD },
            ip: freshIp(),
          });
          fresh.push(ms);
          expect(res.status).toBe(202);
        },
        async () => {
          const { res, ms } = await callTimed("POST", "/api/v1/auth/signup", {
            body: { email: registered[i]!, password: GOOD_PASSWORD },
            ip: freshIp(),
          });
          known.push(ms);
          expect(res.status).toBe(202);
        },
      ];
      if (i % 2) runs.reverse();
      for (const run of runs) await run();
    }
    expectIndistinguishableTimes("signup: new vs registered e-mail", fresh, known);
  });
});

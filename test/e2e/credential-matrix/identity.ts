/**
 * The identity rows of the credential matrix (src/identity/credentials.ts): for each (kind, ending event)
 * pair, make the credential through the gateway, use it, perform the event as a person (or identity's cron)
 * would, and use it again. Every `use` after the event must fail because of the credential, never because of
 * something else the event did (a session it ended, a rate limit): where the event ends the sessions too,
 * the row signs in again before it uses the credential.
 */
import { freshIp } from "../../support/identity-helpers";
import { call, type Session } from "../../support/platform";
import {
  changePassword,
  deleteAccount,
  disown,
  enrolTotp,
  magicSignIn,
  me,
  newMail,
  type Person,
  person,
  refresh,
  resetPassword,
  signOutEverywhere,
} from "./identity-steps";
import { type MatrixRows, row } from "./row";

/** An account, and a second session of it (the one the rows use) beside the one that performs the event. */
async function twoSessions(): Promise<{ owner: Person; other: Session }> {
  const owner = await person();
  return { owner, other: await magicSignIn(owner) };
}

/** The "this was not me" of a factor the account's own token planted: the notice mailed to the owner. */
async function plantedTotpNotice(owner: Person) {
  await enrolTotp(owner);
  return newMail(owner.email, "factor_added_notice");
}

/** The rows of one session-bound kind: the same endings, one `use`. */
function sessionRows(kind: string, use: (s: Session) => Promise<number>, ended: number): MatrixRows {
  return {
    [`${kind} × sign_out_everywhere`]: row({
      arrange: twoSessions,
      use: ({ other }) => use(other),
      end: ({ owner }) => signOutEverywhere(owner),
      ended,
    }),
    [`${kind} × password_change`]: row({
      arrange: twoSessions,
      use: ({ other }) => use(other),
      end: ({ owner }) => changePassword(owner),
      ended,
    }),
    [`${kind} × password_reset`]: row({
      arrange: twoSessions,
      use: ({ other }) => use(other),
      end: ({ owner }) => resetPassword(owner),
      ended,
    }),
    [`${kind} × account_deletion`]: row({
      arrange: twoSessions,
      use: ({ other }) => use(other),
      end: ({ owner }) => deleteAccount(owner),
      ended,
    }),
    [`${kind} × undo`]: row({
      arrange: twoSessions,
      use: ({ other }) => use(other),
      end: async ({ owner }) => disown(await plantedTotpNotice(owner)),
      ended,
    }),
  };
}

/** `POST /auth/login/start` with the password: 428 MFA_NOT_ENROLLED once it matched (no second factor). */
async function passwordWorks(who: Person, password: string): Promise<number> {
  const res = await call("POST", "/api/v1/auth/login/start", {
    body: { email: who.email, password },
    headers: { "cf-connecting-ip": freshIp() },
  });
  return res.status;
}

export const rows: MatrixRows = {
  ...sessionRows("identity.session", refresh, 401),
  // The reuse of a rotated refresh token (a thief's copy) ends the whole family, the owner's copy too.
  "identity.session × rotation": row({
    arrange: async () => {
      const owner = await person();
      return { owner, first: owner.refresh_token };
    },
    use: ({ owner }) => refresh(owner),
    end: async ({ first }) => {
      const replayed = await call("POST", "/api/v1/auth/refresh", { body: { refresh_token: first } });
      if (replayed.status !== 401) throw new Error(`the replayed refresh token answered ${replayed.status}`);
    },
    ended: 401,
  }),
  ...sessionRows("identity.access_token", (s) => me(s.access_token), 401),

  "identity.password × password_reset": row({
    arrange: async () => {
      const owner = await person();
      return { owner, old: owner.password };
    },
    use: ({ owner, old }) => passwordWorks(owner, old),
    end: ({ owner }) => resetPassword(owner),
    works: 428,
    ended: 401,
  }),
  "identity.password × password_change": row({
    arrange: async () => {
      const owner = await person();
      return { owner, old: owner.password };
    },
    use: ({ owner, old }) => passwordWorks(owner, old),
    end: ({ owner }) => changePassword(owner),
    works: 428,
    ended: 401,
  }),
  "identity.password × account_deletion": row({
    arrange: person,
    use: (owner) => passwordWorks(owner, owner.password),
    end: deleteAccount,
    works: 428,
    ended: 401,
  }),
};

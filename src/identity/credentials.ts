/**
 * Every credential identity issues or honours (issue 31; the types and the rule in src/lib/credentials.ts):
 * what each costs, who is told, its undo, and the events that end it. Pure data: the matrix test
 * (test/e2e/credential-matrix.test.ts, rows in test/e2e/credential-matrix/identity.ts) performs every
 * (kind, event) pair named here; the structure test (test/structure/credential-registry.unit.test.ts)
 * requires every table of schema/identity.ts that holds a secret, a hash or a grant to be claimed here;
 * docs/decisions/credentials.md is generated from it (`npm run credentials`).
 */
import type { CredentialKind } from "../lib/credentials";

const SESSION_ENDINGS = [
  "sign_out_everywhere",
  "password_change",
  "password_reset",
  "account_deletion",
  "undo",
] as const;

export const CREDENTIALS: readonly CredentialKind[] = [
  // Sessions: every way in ends in one.
  {
    id: "identity.session",
    service: "identity",
    title: "Session and its refresh-token family",
    power:
      "renews access tokens (`POST /auth/refresh`) for 14 days from the sign-in; each refresh token is used once and replaced by the next of its family",
    proof:
      "a full sign-in: the password and a second factor (TOTP, passkey, SMS or e-mail code, recovery code), a magic link (alone only while the account has no second factor), a passkey alone with user verification, or the organization's SSO provider",
    told: "the account's security events list every sign-in; `GET /auth/sessions` lists the live sessions by browser and OS",
    undo: "`DELETE /auth/sessions/{id}` ends one; `DELETE /auth/sessions` (step-up) ends all, or all others with `keep_current`",
    endedBy: [...SESSION_ENDINGS, "rotation"],
    alsoEndsWhen: [
      "its 14 days end, counted from the sign-in across rotations",
      "`DELETE /auth/sessions/{id}` (test/identity/sessions.integration.test.ts)",
    ],
    survives: [
      {
        event: "password_change",
        why: "the session that changed the password survives (spec); every other session of the account ends",
      },
    ],
    tables: ["sessions"],
  },
  {
    id: "identity.access_token",
    service: "identity",
    title: "Access token (the EdDSA JWT of a session)",
    power:
      "the Bearer of every staff API call for 15 minutes: identity reads its session's liveness in D1 on every call; the gateway caches the session's edge context (memberships, operator capability) at most 30 s",
    proof: "a live session (a sign-in or a refresh)",
    told: "as its session",
    undo: "ending its session",
    endedBy: [...SESSION_ENDINGS],
    alsoEndsWhen: [
      "its 15 minutes pass (`exp`)",
      "at content and sites, at most 30 s after its session ended (the gateway's edge-context cache; test/gateway/edge-cache.test.ts)",
    ],
    survives: [
      {
        event: "password_change",
        why: "the token of the session that changed the password keeps working, as that session does",
      },
    ],
    tables: [],
  },
  {
    id: "identity.trusted_device",
    service: "identity",
    title: "Trusted-device session (90 days)",
    power: "a session that renews for 90 days instead of 14",
    proof:
      "the phased sign-in with a second factor and `trust_device` asked (`POST /auth/login/mfa/verify`); never for an SSO session",
    told: "the account's security events; `GET /auth/sessions` marks it `trusted_device`",
    undo: "as any session: `DELETE /auth/sessions/{id}`, or `DELETE /auth/sessions`",
    endedBy: ["sign_out_everywhere", "password_change", "password_reset"],
    alsoEndsWhen: [
      "every other ending of identity.session: the account's erasure, an owner's undo, a refresh reuse",
    ],
    tables: ["sessions"],
  },

  // What signs in.
  {
    id: "identity.password",
    service: "identity",
    title: "Password",
    power:
      "the first factor of a sign-in (staff add a second factor); stored as a scrypt hash, counted by the lockout",
    proof:
      "signup with the address's code; a change costs the current password and the step-up; a reset costs a code or link mailed to a usable address of the account",
    told: "a reset mails the primary address (`password_reset_notice`); a change and a reset are security events",
    undo: "none: the password reset by the owner's mailbox is the way back, and it ends every session",
    endedBy: ["password_reset", "password_change", "account_deletion"],
    tables: ["users"],
  },
  {
    id: "identity.email_address",
    service: "identity",
    title: "Added e-mail address",
    power:
      "signs in (password, magic link) and recovers the account (reset) through the address, 72 hours after its proof (at once once the owner makes it primary with a code to the current primary)",
    proof: "the access token and the address's own code (`POST /auth/emails`, `POST /auth/emails/verify`)",
    told: 'the primary address at once (`email_added_notice`, `email_verified_notice`), with a "not my address" link',
    undo: "the notice's link (`POST /auth/emails/disown`): removes the address and ends every session",
    endedBy: ["undo", "account_deletion"],
    alsoEndsWhen: ["`DELETE /auth/emails/{id}` by the owner (no step-up, by the spec)"],
    survives: [
      {
        event: "password_reset",
        why: "an address is proven by its own mailbox, not by the password; one a stolen token planted is refused for 72 h and removed by the notice's link, which survives the reset",
      },
      {
        event: "password_change",
        why: "as for the reset: the address's proof is its mailbox",
      },
    ],
    tables: ["email_addresses"],
  },
  {
    id: "identity.totp",
    service: "identity",
    title: "TOTP authenticator",
    power: "the second factor of a password sign-in (one code per 30-second step, each step once)",
    proof:
      "the access token when it is the account's first factor; otherwise the step-up code on `POST /auth/mfa/totp`, bound to that ceremony",
    told: "the primary address at once (`factor_added_notice`, with the new recovery codes named)",
    undo: "the notice's link (`POST /auth/disown`): removes it, voids the recovery codes made with it or since, ends every session",
    endedBy: ["undo", "factor_removal", "account_deletion"],
    survives: [
      {
        event: "password_reset",
        why: "a second factor alone opens nothing: whoever holds it still needs the new password (the owner signs in with an e-mail code meanwhile)",
      },
      { event: "password_change", why: "as for the reset: a second factor alone opens nothing" },
    ],
    tables: ["totp_factors"],
  },
  {
    id: "identity.phone",
    service: "identity",
    title: "Phone (SMS codes)",
    power: "the second factor of a password sign-in by a code sent by SMS",
    proof:
      "the code sent to the number, and the access token when it is the account's first factor, otherwise the step-up code on `POST /auth/mfa/phone/start`",
    told: "the primary address at once (`factor_added_notice`)",
    undo: "the notice's link (`POST /auth/disown`): removes it, voids recovery codes made since, ends every session",
    endedBy: ["undo", "factor_removal", "account_deletion"],
    alsoEndsWhen: ["a new number replaces it (the step-up again)"],
    survives: [
      {
        event: "password_reset",
        why: "a second factor alone opens nothing: its holder still needs the new password",
      },
      { event: "password_change", why: "a second factor alone opens nothing" },
    ],
    tables: ["phones"],
  },
  {
    id: "identity.passkey",
    service: "identity",
    title: "Passkey",
    power:
      "a second factor, and with user verification a whole sign-in alone (`POST /auth/login/passkey/*`), never behind the password lockout",
    proof:
      "the step-up code on `POST /auth/mfa/passkey/register/begin`, bound to that ceremony, for every passkey (issue 31), then the authenticator's attestation",
    told: "the primary address at once (`factor_added_notice`)",
    undo: "the notice's link (`POST /auth/disown`): removes it, voids recovery codes made since, ends every session",
    endedBy: ["undo", "factor_removal", "account_deletion"],
    survives: [
      {
        event: "password_reset",
        why: "registered with the step-up: it cost the mailbox that the reset proves too, and the owner was told with an undo (one registered without it ends: identity.passkey_without_step_up)",
      },
      { event: "password_change", why: "registered with the step-up, as for the reset" },
    ],
    tables: ["passkeys", "passkey_ceremonies"],
  },
  {
    id: "identity.passkey_without_step_up",
    service: "identity",
    title: "Passkey registered without the step-up (before issue 31)",
    power: "as a passkey: a whole sign-in alone",
    proof:
      "the access token alone (an account's first factor, before issue 31); no passkey is registered so any more, those from before are marked `stepped_up = 0`",
    told: "the primary address was told when it was added (`factor_added_notice`); the reset's mail names the passkeys it ended",
    undo: "the notice's link, as any passkey",
    endedBy: ["password_reset"],
    alsoEndsWhen: ["every ending of identity.passkey (the undo, its removal, the account's erasure)"],
    tables: ["passkeys"],
  },
  {
    id: "identity.recovery_codes",
    service: "identity",
    title: "Recovery-code pool",
    power: "ten single-use codes, each the second factor of one sign-in",
    proof:
      "TOTP's first confirmation (the factor's own proof), or the step-up (`POST /auth/mfa/recovery-codes/generate`)",
    told: "the primary address at once (`recovery_codes_notice`, or inside the TOTP's notice)",
    undo: "the notice's link (`POST /auth/disown`): voids the pool and ends every session",
    endedBy: ["rotation", "undo", "account_deletion"],
    alsoEndsWhen: ["each code once used", "the undo of the TOTP, phone or passkey it was made with or after"],
    survives: [
      {
        event: "factor_removal",
        why: "the pool recovers the account's remaining strong factor, not one factor; its owner removed the factor with the step-up",
      },
      {
        event: "password_reset",
        why: "a second factor alone opens nothing: its holder still needs the new password",
      },
    ],
    tables: ["recovery_codes"],
  },

  // One-time codes and links (otp_codes): consumed once, expired, or voided by a password change or reset.
  {
    id: "identity.magic_link",
    service: "identity",
    title: "Magic-link code and link",
    power:
      "a first factor: a session for an account without a second factor, otherwise the phased login's challenge",
    proof: "the mailbox of a usable address of the account",
    told: "the mail itself",
    undo: "none needed: it opens nothing without the mailbox; a password change or reset voids it",
    endedBy: ["use", "password_change", "password_reset"],
    alsoEndsWhen: ["15 minutes", "5 wrong codes (the link's token is not guessable and not counted)"],
    tables: ["otp_codes"],
  },
  {
    id: "identity.password_reset_code",
    service: "identity",
    title: "Password-reset code and link",
    power: "sets a new password, ending every session",
    proof: "the mailbox of a usable address of the account",
    told: "the mail itself; the reset then mails `password_reset_notice`",
    undo: "none needed: it opens nothing without the mailbox",
    endedBy: ["use", "password_change", "password_reset"],
    alsoEndsWhen: ["30 minutes", "5 wrong codes"],
    tables: ["otp_codes"],
  },
  {
    id: "identity.email_verify_code",
    service: "identity",
    title: "Signup confirmation code",
    power: "activates the account and opens its first session",
    proof: "the mailbox of the address signed up with",
    told: "the mail itself",
    undo: "none needed: it opens nothing without the mailbox",
    endedBy: ["use"],
    alsoEndsWhen: [
      "24 hours",
      "5 wrong codes",
      "another pending account of the same address proves it first (each signup opens its own pending account with its own code; the later confirmation answers 409 EMAIL_TAKEN)",
    ],
    tables: ["otp_codes"],
  },
  {
    id: "identity.email_add_code",
    service: "identity",
    title: "Code proving an added address",
    power: "proves a pending address of the account (`POST /auth/emails/verify`)",
    proof: "the added address's mailbox (and the access token that added it)",
    told: "the mail itself; the proof then tells the primary address",
    undo: "none needed: the address it proves has its own undo",
    endedBy: ["use", "password_change", "password_reset"],
    alsoEndsWhen: ["10 minutes", "5 wrong codes", "a new code for the same address"],
    tables: ["otp_codes"],
  },
  {
    id: "identity.step_up_code",
    service: "identity",
    title: "Step-up code (`X-Step-Up-Code`)",
    power: "authorizes one sensitive operation of the account, the one it was sent for",
    proof: "the primary address's mailbox (sent on the operation's 428 `STEP_UP_REQUIRED`)",
    told: 'the mail itself ("if you did not ask for it, change your password")',
    undo: "none needed: it authorizes one operation, which has its own notice",
    endedBy: ["use", "rotation", "password_change", "password_reset"],
    alsoEndsWhen: ["10 minutes", "5 wrong codes"],
    tables: ["otp_codes"],
  },
  {
    id: "identity.login_challenge",
    service: "identity",
    title: "Open login challenge",
    power: "finishes a sign-in with a second factor (its e-mail or SMS code, TOTP, passkey or recovery code)",
    proof: "the first factor: the password, or a magic link",
    told: "nobody: it is half a sign-in; the session it becomes is listed",
    undo: "none needed: a password change or reset, or any owner's undo, voids it (`credential_epoch`)",
    endedBy: ["use", "password_change", "password_reset", "undo"],
    alsoEndsWhen: ["10 minutes", "5 wrong second factors"],
    tables: [],
  },
  {
    id: "identity.disown_link",
    service: "identity",
    title: '"This was not me" link of an owner notice',
    power:
      "removes the address, factor or pool it names and ends every session of the account; it grants nothing",
    proof:
      "the primary address's mailbox (an HMAC-signed token naming the kind, the subject and the account)",
    told: "it is the notice",
    undo: "none: removing a way in is the safe direction",
    endedBy: [],
    alsoEndsWhen: [
      "7 days",
      "the subject it names is gone (a second click changes nothing; test/identity/owner-notices.integration.test.ts)",
    ],
    survives: [
      {
        event: "password_reset",
        why: "it is the owner's way to remove a planted factor, and must outlive the owner's own recovery",
      },
    ],
    tables: [],
  },

  // Leaving the account.
  {
    id: "identity.account_deletion_request",
    service: "identity",
    title: "Account deletion request",
    power:
      "ends every session at once, refuses every sign-in, and erases the account after 30 days (`DELETE /auth/account`)",
    proof: "the step-up code (refused while the account is the last owner of an organization or site)",
    told: "the primary address at once (`account_deletion_notice`), with the way back",
    undo: "the cancel (`POST /auth/account/deletion/cancel`) with a code mailed to a verified, usable address",
    endedBy: ["undo"],
    alsoEndsWhen: [
      "the grace period: the hourly run erases the account (test/identity/account-deletion.integration.test.ts)",
    ],
    tables: ["account_deletions"],
  },
  {
    id: "identity.account_restore_code",
    service: "identity",
    title: "Deletion cancel code",
    power: "cancels a pending deletion (no session: the owner signs in again)",
    proof: "the mailbox of a verified, usable address of the account",
    told: "the mail itself; the cancel then tells the primary address",
    undo: "none needed: it only keeps the account",
    endedBy: ["use", "account_deletion"],
    alsoEndsWhen: ["30 minutes", "5 wrong codes"],
    tables: ["otp_codes"],
  },

  // Organizations and sites.
  {
    id: "identity.invitation",
    service: "identity",
    title: "Invitation (organization or site)",
    power:
      "joins the organization or the site in the invited role, creating the account when the address has none",
    proof:
      "an administrator with `members:manage` (a site's owner for a site invitation) sends it; accepting it costs the mailed link; it lives only as long as its sender's `members:manage`",
    told: "the organization's security events; the pending list (`GET …/invitations`) to its administrators",
    undo: "`DELETE …/invitations/{id}` by an administrator; a resend replaces the link",
    endedBy: ["use", "member_removal", "member_demotion", "site_transfer"],
    alsoEndsWhen: [
      "7 days",
      "a resend (the old link dies)",
      "its sender leaves, or is erased (the hourly run): with `members:manage` (a site invitation: the site's ownership) ends what they sent and nobody took yet (test/e2e/sent-grants.test.ts)",
    ],
    tables: ["invitations"],
  },
  {
    id: "identity.org_membership",
    service: "identity",
    title: "Organization membership",
    power:
      "the role's permissions over the organization and each of its sites (`src/lib/site-permissions.ts`), at the edge and on identity's organization routes",
    proof:
      "an administrator with `members:manage` adds an existing account, or the person accepts an invitation; an SSO registration joins as `org_member`",
    told: "the organization's security events; the member list to every member",
    undo: "`DELETE /auth/orgs/{org_id}/members/{user_id}` by an administrator, or by the member (leaving)",
    endedBy: ["member_removal", "member_demotion", "sso_enforcement"],
    alsoEndsWhen: [
      "the account's erasure deletes it (test/e2e/member-grants.test.ts)",
      "at the edge (content and sites) at most 30 s after the change (the gateway's edge-context cache)",
    ],
    tables: ["org_memberships"],
  },
  {
    id: "identity.site_membership",
    service: "identity",
    title: "Site membership",
    power: "the site role's permissions over that one site, at the edge and on identity's site routes",
    proof: "an invitation from the site's owner or an organization administrator, accepted through its link",
    told: "the site's member list to its owners",
    undo: "`DELETE /auth/sites/{site_id}/members/{user_id}`",
    endedBy: ["member_removal", "member_demotion", "site_transfer", "site_deletion", "site_archival"],
    alsoEndsWhen: [
      "the account's erasure deletes it",
      "at the edge (content and sites) at most 30 s after the change (the gateway's edge-context cache)",
    ],
    survives: [
      {
        event: "site_transfer",
        why: "a member who is also a member of the destination organization keeps it (the new owner can remove it); only outsiders' memberships end",
      },
    ],
    tables: ["site_memberships", "transfer_ended_site_memberships"],
  },
  {
    id: "identity.transfer_offer",
    service: "identity",
    title: "Site transfer or share offer",
    power: "lets the destination organization take the site (transfer) or a role on it (share) by accepting",
    proof:
      "an administrator of the site's organization with `members:manage`; it lives only as long as its sender's `members:manage`",
    told: "both organizations' transfer lists (`GET /auth/orgs/{org_id}/transfers`, with `will_end`)",
    undo: "`POST …/transfers/{id}/cancel` by the origin while pending; the destination may reject it",
    endedBy: ["use", "undo", "member_removal"],
    alsoEndsWhen: [
      "7 days",
      "the destination rejects it",
      "its sender is demoted below `members:manage`, leaves, or is erased (test/e2e/sent-grants.test.ts)",
    ],
    tables: ["transfers"],
  },
  {
    id: "identity.platform_operator",
    service: "identity",
    title: "Platform operator capability",
    power:
      "`operator_read` or `operator_admin` over every site (the sites console), set by the edge as `X-Platform-Operator`",
    proof: "`npm run operator -- grant EMAIL CAPABILITY`: write access to identity's database",
    told: "nobody: granted by whoever runs the platform's database",
    undo: "`npm run operator -- revoke EMAIL`",
    endedBy: [],
    alsoEndsWhen: [
      "`npm run operator -- revoke EMAIL`",
      "the account's erasure deletes it (src/identity/account/erasure.ts)",
      "at the edge at most 30 s after (the gateway's edge-context cache)",
    ],
    tables: ["platform_operators"],
  },

  // Organization single sign-on (docs/decisions/sso.md).
  {
    id: "identity.sso_configuration",
    service: "identity",
    title: "Organization SSO provider and its vouched domains",
    power:
      "signs in, registers and links the accounts of the proved domains through the organization's OpenID provider",
    proof:
      "an owner with the step-up code; each vouched domain proved by a DNS TXT record, one organization at a time; the provider's `email_verified` required",
    told: "every owner at once, with a one-click undo link (7 days, once, bound to that change)",
    undo: "the link (`POST /auth/orgs/{org_id}/sso/undo`) puts back the configuration before the change, or removes SSO; or `DELETE …/sso` by any owner (step-up)",
    endedBy: ["undo", "sso_removal"],
    tables: ["org_sso", "sso_domains"],
  },
  {
    id: "identity.sso_session",
    service: "identity",
    title: "SSO session",
    power: "a session that reaches only the organization whose provider signed it in (and its sites)",
    proof:
      "the provider's signed ID token (issuer, audience, nonce, expiry, JWKS signature) after PKCE and a state bound to the browser",
    told: "the account's security events; listed as any session",
    undo: "as any session (`DELETE /auth/sessions…`)",
    endedBy: ["sso_removal", "undo", "member_removal", "sign_out_everywhere"],
    alsoEndsWhen: ["the provider replaced (a new `config_id`)", "every ending of identity.session"],
    tables: ["sso_sessions"],
  },
  {
    id: "identity.sso_link",
    service: "identity",
    title: "SSO link of an account to the provider's subject",
    power: "the provider signs the account in again with no further proof",
    proof:
      "the SSO registration (the provider's proof of a vouched address), or for an existing account its address's mailed code (`POST /auth/sso/link`)",
    told: "the mail itself (the link code); the account's security events",
    undo: "none of its own: the organization removes the member, or the owners undo the provider",
    endedBy: ["member_removal", "sso_removal"],
    alsoEndsWhen: [
      "a new issuer drops the links (test/identity/sso-config.integration.test.ts)",
      "the undo of the change that made the provider drops the links made since (test/identity/sso-undo.integration.test.ts)",
    ],
    tables: ["sso_identities"],
  },
  {
    id: "identity.sso_sign_in_token",
    service: "identity",
    title: "SSO sign-in in flight (authorization request, registration and link tokens)",
    power:
      "finishes one SSO sign-in: the authorization request's state, verifier and nonce (10 minutes), then the registration or link token (15 minutes)",
    proof: "the provider's redirect to the browser that started it (the state is bound to a browser cookie)",
    told: "nobody: half a sign-in",
    undo: "none needed",
    endedBy: [],
    alsoEndsWhen: [
      "used once, by compare-and-set (test/identity/sso-sign-in.integration.test.ts)",
      "10 and 15 minutes; the hourly cleanup deletes them a day later",
      "the undo of the provider ends the registrations in flight",
    ],
    tables: ["sso_logins", "sso_pending"],
  },
  {
    id: "identity.sso_undo_link",
    service: "identity",
    title: "One-click undo link of an SSO change",
    power: "puts back the organization's SSO configuration before the change, or removes SSO",
    proof: "an owner's mailbox (32 random bytes, stored hashed)",
    told: "it is the notice; its use tells every owner",
    undo: "none: a later change by an owner",
    endedBy: [],
    alsoEndsWhen: [
      "used once (test/identity/sso-undo.integration.test.ts, 20 concurrent uses: one 200)",
      "a later change supersedes it",
      "7 days",
    ],
    tables: ["sso_undos"],
  },
  {
    id: "identity.edge_headers",
    service: "identity",
    title: "Edge headers (who the caller is)",
    power:
      "`X-User-Id`, `X-Org-Memberships`, `X-Site-Memberships`, `X-Platform-Operator`, `X-Session-Kind`: what every service believes about the caller; identity answers them for a live session (RPC `edgeContext`)",
    proof:
      "a live session's access token at the gateway, which strips every client-sent copy and signs the ones it sets (HMAC of `EDGE_HMAC_SECRET`, src/lib/edge-trust.ts); a service drops them all unless the signature verifies",
    told: "nobody: they describe a session, never add one",
    undo: "none: they end with what they describe",
    endedBy: [],
    alsoEndsWhen: [
      "60 s after signing (test/gateway/edge-signature.security.test.ts)",
      "the session or membership they describe ends: the gateway's cache holds them at most 30 s (test/gateway/edge-cache.test.ts)",
    ],
    tables: [],
  },
  {
    id: "identity.sso_break_glass",
    service: "identity",
    title: "SSO break-glass (an enforcing organization's owner by password)",
    power: "keeps an enforcing organization on an owner's non-SSO session, to fix a broken provider",
    proof: "the password and a second factor",
    told: "every owner at once, the first use per session",
    undo: "ending the session",
    endedBy: [],
    alsoEndsWhen: ["its session ends (every ending of identity.session)"],
    tables: ["sso_break_glass"],
  },
  // MCP agents (issue 37, docs/decisions/oauth-agents.md).
  {
    id: "identity.oauth_grant",
    service: "identity",
    title: "MCP agent's grant (OAuth: its code, refresh tokens and access tokens)",
    power:
      "acts as the person on one site through `/v1/mcp` with the scopes the person approved, capped at every use by what the person's role there allows now (`scopesOfPermissions`); access tokens (EdDSA JWT, `aud` the MCP resource, 5 minutes) renewed by a refresh token (`mcr_`, 30 days, rotated on every use) for as long as the grant lives",
    proof:
      "the person signed in on the hosted consent page (`/auth/authorize`: every sign-in method, SSO enforcement included) approves the client's name, origin, exact redirect URI, the site and the scopes in words, with the page's CSRF token; then the client redeems the code with its PKCE S256 verifier at the token endpoint; `leads:read` is never preselected",
    told: "the person at once: the `oauth_grant.created` security event (`GET /api/v1/auth/events`) and a mailed notice with a one-click undo; each first use of a day (`oauth_grant.used`) and each end (`oauth_grant.revoked`, the reason as its method) are events too",
    undo: "the notice's one-click undo; the account page's list of connected agents (`DELETE /api/v1/auth/oauth/grants/{id}`); the site's members holding `integrations` (`DELETE /api/v1/auth/sites/{site_id}/oauth-grants/{id}`); the client's RFC 7009 revocation",
    endedBy: [
      "undo",
      "password_reset",
      "password_change",
      "account_deletion",
      "member_removal",
      "member_demotion",
      "site_transfer",
      "site_deletion",
      "site_archival",
      "sso_enforcement",
    ],
    alsoEndsWhen: [
      "a replayed authorization code or a reused rotated refresh token ends the whole grant (the token endpoint)",
      "its refresh token's 30 days pass without a use; an access token lives 5 minutes",
      "at `/v1/mcp` a revoked grant stops writing at once and reading within 60 s (content's isolate copy of `IdentityRpc.agentAccess`)",
      "the account's deletion request ends it with the sessions (in the request's batch), and the erasure deletes it with its codes and refresh tokens",
      "a membership's end or role change ends each grant of the person there whose approved scopes the role no longer covers in full (`member_grant_endings`, delivered before the member route answers, else by the hourly run); it is never narrowed in place, so a later promotion does not widen an agent approved under another role",
      "a site's deletion or archival: content refuses the grant's every use while the site is deleted or archived (its site check, as for keys; identity is not told); a platform operator's restore brings the site back for the same organization, and with it the grant, as it brings back the keys",
      "a transfer's acceptance ends every grant on the site in its batch (a transfer the registry then refuses leaves them ended: fail closed; the person connects again)",
      "SSO enforcement turned on (`PUT …/sso`), or put back by the one-click undo of turning it off, ends every grant on the organization's sites in that batch",
    ],
    survives: [
      {
        event: "sign_out_everywhere",
        why: "it ends the browsers' sessions; an agent holds none, and is listed apart on the account page with its own revoke (as a site's API keys survive it); a person who suspects theft changes or resets the password, which ends every grant",
      },
    ],
    tables: ["oauth_grants", "oauth_codes", "oauth_refresh_tokens"],
  },
  {
    id: "identity.oauth_consent",
    service: "identity",
    title: "MCP consent in progress (the consent page's request and CSRF token)",
    power: "approves or denies one authorization request, once, for the signed-in person it is bound to",
    proof:
      "a validated authorization request (registered client, exact redirect URI, PKCE S256 challenge, resource) and the person's sign-in on the consent page",
    told: "nobody: half an approval; the grant it makes is told",
    undo: "none needed: deny, or let it lapse",
    endedBy: [],
    alsoEndsWhen: [
      "used once (approve or deny: the compare-and-set on `decided_at` in the grant's own batch)",
      "10 minutes",
      "the account's erasure deletes it",
    ],
    tables: ["oauth_consents"],
  },
  {
    id: "identity.oauth_client",
    service: "identity",
    title: "MCP client (a Client ID Metadata Document or an RFC 7591 registration)",
    power:
      "names an agent's software to the authorization server (its name, redirect URIs, token authentication); a confidential registration's secret authenticates it at the token endpoint. Alone it opens nothing: every token needs a person's grant",
    proof:
      "none, by design (open registration, or a document at the client's own https URL fetched through the safe fetch): the consent page shows such clients as unverified and never approves one without the person",
    told: "nobody: it grants nothing; the person sees the client on the consent page and in the list of connected agents",
    undo: "none needed: revoking the person's grants takes back all it could use",
    endedBy: [],
    alsoEndsWhen: [
      "nothing ends a client; each of its grants ends by its own events (`identity.oauth_grant`), and a metadata document is fetched again when its copy is stale",
    ],
    tables: ["oauth_clients"],
  },
];

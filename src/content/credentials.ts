/**
 * Every credential content issues or honours, as the credential rule's registry (issue 31;
 * `src/lib/credentials.ts`): what it costs, who is told, the undo, and the events that end it. Each
 * (kind, event) pair of `endedBy` has its row in `test/e2e/credential-matrix/content.ts`, performed through
 * the gateway; `docs/decisions/credentials.md` is generated from this list (`npm run credentials`).
 *
 * Not credentials (nothing here to end): an `Idempotency-Key` replays an answer only to the key that made
 * it, after that key authenticated; MCP (`/v1/mcp`) keeps no session, every request carries its key; media
 * URLs are public by design. Pure data: no bindings, so Node tests and scripts import it.
 */
import type { CredentialKind } from "../lib/credentials";

/** What a key's creator losing `integrations` means, in the words of docs/decisions/grant-endings.md. */
const CREATOR_GRANT =
  "its creator's `integrations` grant ends (removal, demotion, leaving, an invitation accepted with a smaller role: revoked before the member route answers; erasure: in the hourly run that erases the account; the owners mailed, `integrations_ended` event; docs/decisions/grant-endings.md)";

const KEY_TOLD =
  "the site's administrators see it in the key list (`GET /api/v1/sites/{site_id}/api-keys`: creator, creation time, scopes, and its last widening: who, when, what was added, `last_widened`); the owners are mailed (`integrations_ended_notice`) when it ends with its creator's grant";

/** What an edit of a key costs (docs/decisions/key-editing.md). */
const KEY_EDIT =
  "its name, scopes and origins are edited by the same administrators (`PATCH /api/v1/sites/{site_id}/api-keys/{id}`): a widening (a scope, origin or server reads it did not have) costs what creating costs and is recorded on the key as its creation is; a narrowing holds at once for writes, lead reads and exports, and for cached reads within the 30 s key cache";

const SITE_GONE =
  "refused while the site is deleted or archived (content's projection says so before the site route answers); a platform operator's restore brings the site back with it, for the same organization";

const SESSION_SURVIVAL = {
  event: "sign_out_everywhere",
  why: "a key acts without a session: it belongs to the site, granted by its creator's `integrations`, which signing out does not change; the administrators revoke it from the key list",
} as const;

/** What ends a credential granted by its creator's role on the site: the role's end and the creator's erasure. */
const CREATOR_ENDINGS = ["member_removal", "member_demotion", "account_deletion"] as const;
/** What ends every credential of a site: the site changing hands, deleted or archived. */
const SITE_ENDINGS = ["site_transfer", "site_deletion", "site_archival"] as const;

const PASSWORD_SURVIVAL = {
  event: "password_reset",
  why: "the reset proves the mailbox, not which keys an intruder minted; keys stay the site's, each listed with its creator and time for the administrators to revoke (the creator's own grant ending still ends it)",
} as const;

export const CREDENTIALS: readonly CredentialKind[] = [
  {
    id: "content.secret_key",
    service: "content",
    title: "Secret API key (`ck_`)",
    power:
      "writes and reads the site's content with its scopes (posts, media, SEO, settings, import, export, leads), without a person",
    proof: `a signed-in administrator holding \`integrations\` on the site (owners, org admins, site owners; never a share; \`src/lib/site-permissions.ts\`); shown once, stored as a peppered hash; ${KEY_EDIT}`,
    told: KEY_TOLD,
    undo: "revoke: `DELETE /api/v1/sites/{site_id}/api-keys/{id}` by any administrator with `integrations`",
    endedBy: ["key_revocation", ...CREATOR_ENDINGS, ...SITE_ENDINGS],
    alsoEndsWhen: [
      `${CREATOR_GRANT}; the matrix performs removal, demotion and erasure`,
      "a transfer suspends it (carried over, listed to the buyer) and only the buyer's explicit `keep` revives it; writes, lead reads and exports are refused as soon as content knows the new owner, other reads within the 30 s key cache (docs/decisions/transfer-grants.md)",
      SITE_GONE,
    ],
    survives: [PASSWORD_SURVIVAL, SESSION_SURVIVAL],
    tables: ["api_keys", "ended_member_grants"],
  },
  {
    id: "content.public_key",
    service: "content",
    title: "Public API key (`pk_`) and its allowed origins",
    power:
      "reads what the public site shows (only the public scopes are accepted on it: `posts:read`, `post_types:read`, `sites:read` (reserved: gates nothing today), `media:read`, `seo:read`) and records page views, only from the browser origins of its list (`allowed_origins`: exact origins, or over https one leading wildcard label such as `https://*.my-project.pages.dev`, never directly under a public suffix; checked right after the key: 403 `ORIGIN_NOT_ALLOWED`, a missing Origin too). With `server_reads: true`, its owner's opt-in, it also serves reads sent without an Origin: the server-side rendering path (a server or a static build fetching the page's content and `<head>` data), never a request whose fetch metadata shows a browser (`Sec-Fetch-Site` or `Sec-Fetch-Dest`, or a `Sec-Fetch-Mode` other than `cors`: Node's fetch sends that one alone), never page views; those reads count on a per-key bucket of their own (`server-reads`, 600 a minute), and the answers say `Vary: Origin, Sec-Fetch-*` so no cache hands one to a browser",
    proof: `the same as a secret key: an administrator holding \`integrations\`; ${KEY_EDIT} (adding an origin, a wildcard or \`server_reads\` is a widening)`,
    told: KEY_TOLD,
    undo: "revoke: `DELETE /api/v1/sites/{site_id}/api-keys/{id}`; the origins go with the key; an origin or `server_reads` alone is taken back by an edit (`PATCH …/api-keys/{id}`)",
    endedBy: ["key_revocation", "member_removal", "member_demotion", ...SITE_ENDINGS],
    alsoEndsWhen: [
      `${CREATOR_GRANT}; erasure ends it by the same statement as the secret key's (its \`account_deletion\` row)`,
      "reads use the isolate's key cache: an isolate other than the one that ended it may answer for up to 30 s (`KEY_CONTEXT_TTL_MS`, the documented revocation bound of reads)",
      SITE_GONE,
    ],
    survives: [PASSWORD_SURVIVAL, SESSION_SURVIVAL],
    tables: ["api_keys"],
  },
  {
    id: "content.export",
    service: "content",
    title: "Export by a secret key (`export` scope)",
    power:
      "downloads the whole site in one request (`GET /v1/export`: posts as NDJSON, leads and analytics as NDJSON or CSV, each with its own scope); streamed, no download link is minted",
    proof:
      "a secret key carrying `export` (and the resource's scope), minted by an administrator with `integrations`; since issue 19 the key is read from D1 on every export",
    told: "as the key; every leads export is audited (`audit_events`)",
    undo: "revoke the key",
    endedBy: ["key_revocation", "site_transfer"],
    alsoEndsWhen: [
      "every ending of `content.secret_key` (it is that key): these rows show the export path itself, which reads the key fresh, ends at once",
    ],
    tables: ["api_keys"],
  },
  {
    id: "content.webhook",
    service: "content",
    title: "Webhook (a standing grant to receive the site's events, `lead.created` included)",
    power:
      "receives the site's events at a URL of its registrant's choice: post and media events, and with `lead.created` each clean lead's personal data (every such delivery audited before it is sent)",
    proof:
      "a signed-in administrator holding `integrations` on the site, which is also the permission to read leads; the URL must be public (SSRF-checked at registration and at every attempt)",
    told: "the site's administrators see it in the webhook list (`GET /api/v1/sites/{site_id}/webhooks`); the owners are mailed when it ends with its creator's grant; each `lead.created` delivery is an `audit_events` row",
    undo: "delete: `DELETE /api/v1/sites/{site_id}/webhooks/{id}` (pending deliveries go with it)",
    endedBy: ["undo", ...CREATOR_ENDINGS, ...SITE_ENDINGS],
    alsoEndsWhen: [
      `${CREATOR_GRANT}; deleted with its pending deliveries`,
      "a transfer carries it over (suspended): nothing is fanned out or attempted for it from the moment content knows the new owner, until the buyer keeps it",
      "a deleted or archived site fans out nothing",
    ],
    survives: [
      {
        event: "sign_out_everywhere",
        why: "the webhook belongs to the site, granted by its creator's `integrations`; sessions do not carry it",
      },
    ],
    tables: ["webhooks", "webhook_deliveries"],
  },
  {
    id: "content.webhook_secret",
    service: "content",
    title: "Webhook signing secret (`whsec_`)",
    power:
      "lets its holder sign requests a receiver accepts as the site's (Standard Webhooks); whoever holds it can forge deliveries to that receiver",
    proof:
      "shown once, at registration or rotation, to an administrator with `integrations`; stored sealed (`WEBHOOK_SECRET_KEY`)",
    told: "nobody: the receiver's operator installs it; the webhook list shows `secret_rotated_at`",
    undo: "rotate: `POST /api/v1/sites/{site_id}/webhooks/{id}/rotate-secret` (the old secret signs nothing from the next attempt on, retries included)",
    endedBy: ["rotation"],
    alsoEndsWhen: [
      "the webhook ends (each ending of `content.webhook`): the sealed secret is deleted with it",
    ],
    tables: ["webhooks"],
  },
  {
    id: "content.kept_integration",
    service: "content",
    title: "Carried-over API key or webhook, kept by the new owner",
    power:
      "the origin's key or webhook working again on a transferred site, now stamped for the buyer (the origin's people still hold its secret)",
    proof:
      "an administrator of the new owner with `integrations`, one integration at a time (`POST …/api-keys/{id}/keep`, `…/webhooks/{id}/keep`); the origin's people cannot (404)",
    told: "the key and webhook lists show `carried_over` (from which organization, since when) to the new owner's administrators until a choice is made",
    undo: "the existing revoke (`DELETE …/api-keys/{id}`) or delete (`DELETE …/webhooks/{id}`)",
    endedBy: ["key_revocation", "site_transfer"],
    alsoEndsWhen: [
      "the next transfer carries it over again (suspended until that buyer keeps it)",
      SITE_GONE,
    ],
    survives: [
      {
        event: "member_removal",
        why: "the keeper's removal leaves it: keeping made it the organization's integration, and the keeper never held its secret (the reason a removed creator's keys end, grant-endings.md); the administrators revoke it from the list",
      },
    ],
    tables: ["api_keys", "webhooks"],
  },
  {
    id: "content.preview_link",
    service: "content",
    title: "Post preview link (`/v1/preview/{token}`)",
    power: "reads one post as it is now, drafts and scheduled posts included, without a key",
    proof:
      "a secret key that may edit the post (`posts:write`), which reads more than the link shows; the link is a random token (only its SHA-256 stored) naming the key and the organization it was made for, at most 24 h (docs/decisions/previews.md)",
    told: "nobody per link: a link shows only what its key can already read, and notifying every editorial preview would be noise (docs/decisions/revisions-search-feeds.md)",
    undo: "`DELETE /v1/posts/{reference}/preview` ends every link of the post at once, whichever key made it",
    endedBy: [
      "rotation",
      "post_deletion",
      "key_revocation",
      "member_removal",
      "member_demotion",
      ...SITE_ENDINGS,
    ],
    alsoEndsWhen: [
      "its expiry (at most 24 h after it was made): test/content/preview.integration.test.ts moves content's clock",
      "the key that made it ends in any other way (its creator's erasure, a transfer's carry-over): the read joins the key",
      "the site deactivated by a platform operator",
    ],
    tables: ["preview_links"],
  },
  {
    id: "content.person_grant",
    service: "content",
    title:
      "Signed-in member's access to the site's content (the dashboard routes `/api/v1/sites/{site_id}/posts…`, media, categories, tags, authors, leads)",
    power:
      "reads and writes the site's posts, media, categories, tags, author profiles and leads as the person, within the content permissions of their role (`src/lib/site-permissions.ts`: contributor, author, editor, owners and admins); posts are bylined with them and every change names them",
    proof:
      "a staff session (the access token of a signed-in account) and a membership of the site's organization or of the site whose role grants the permission; nothing is minted: the membership is the grant, and a write re-reads it from identity, uncached (`IdentityRpc.siteGrant`, one RPC)",
    told: "the membership's own notices (an invitation or a member added: identity's organization events and mails); every post and revision names who made it, and every lead read is audited as the person (`audit_events.actor_type` person)",
    undo: "remove the member (`DELETE /api/v1/auth/orgs/{org_id}/members/{user_id}` or `DELETE /api/v1/auth/sites/{site_id}/members/{user_id}`), or change the role",
    endedBy: [...CREATOR_ENDINGS, ...SITE_ENDINGS, "sign_out_everywhere"],
    alsoEndsWhen: [
      "writes (any method but GET) end at once: each re-reads the session's liveness and the memberships from identity, so a removed member's next write is the missing site's 404, a demoted one's 403 naming the permission the new role lacks, an ended session's 401 (the matrix rows use a write); reads decide by the edge headers, which the gateway caches for up to 30 s (`EDGE_CONTEXT_TTL`): a removed or demoted member may read for that long, the bound of key reads too",
      "the session ends in any other way (a password reset or change, the access token's expiry): as sign out everywhere",
      SITE_GONE,
    ],
    tables: ["ended_member_grants"],
  },
  {
    id: "content.person_preview_link",
    service: "content",
    title:
      "Post preview link made by a signed-in person (`POST /api/v1/sites/{site_id}/posts/{reference}/preview`)",
    power: "reads one post as it is now, drafts and scheduled posts included, without a key or a session",
    proof:
      "a signed-in person who may edit the post (their own with `posts:write_own`, anyone's with `posts:edit_any`), the grant re-read from identity for the write; the link is a random token (only its SHA-256 stored) naming the person (`preview_links.user_id`) and the organization it was made for, at most 24 h (docs/decisions/previews.md)",
    told: "nobody per link, as a key's link: it shows only what its maker can already read",
    undo: "`DELETE /api/v1/sites/{site_id}/posts/{reference}/preview` (or the `/v1` twin) ends every link of the post at once, whoever made it",
    endedBy: ["rotation", "post_deletion", ...CREATOR_ENDINGS, ...SITE_ENDINGS],
    alsoEndsWhen: [
      "its expiry (at most 24 h after it was made), as a key's link",
      "the person's grant on the site ends by any change identity delivers as a grant ending (`endMemberGrants`: removal, any role change that leaves them without `integrations`, leaving, erasure in the hourly run): every link they made there up to the change ends in that batch, also after a role change that kept the permission that made it (fail closed: a new link is one call)",
      "the site deactivated by a platform operator",
    ],
    tables: ["preview_links"],
  },
  {
    id: "content.form_token",
    service: "content",
    title: "Form token (`_token` of a form submission)",
    power:
      "makes one submission a clean lead: it reaches the site's lead inbox unflagged and is sent to `lead.created` webhooks (spam never leaves)",
    proof:
      "none but time: anyone may read a live form and its token; the token signs the site, form, issue time and a random id, and a submission sooner than 3 s after issue is `too_fast`",
    told: "nobody: a lead is the site's own inbox",
    undo: "none: it is single use; deleting the form ends every token of it (404)",
    endedBy: ["use"],
    alsoEndsWhen: [
      "24 h after issue (`stale_token`): test/content/form-submissions.integration.test.ts moves content's clock",
      "its form deleted or the forms app turned off: the submission route answers 404",
      "a reuse is kept and flagged `reused_token` with the same 202 (the spam model: a bot learns nothing, a false positive stays recoverable; docs/decisions/site-permissions.md)",
    ],
    tables: ["form_token_uses"],
  },
];

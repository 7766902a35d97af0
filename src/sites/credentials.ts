/**
 * Every credential sites issues or honours, as the credential rule's registry (issue 31;
 * `src/lib/credentials.ts`): what it costs, who is told, the undo, and the events that end it. Each
 * (kind, event) pair of `endedBy` has its row in `test/e2e/credential-matrix/sites.ts`, performed through
 * the gateway; `docs/decisions/credentials.md` is generated from this list (`npm run credentials`).
 *
 * The platform operator capability that sites' console honours is identity's kind
 * (`identity.platform_operator`): identity stores it and the edge carries it.
 *
 * Not credentials: a theme's undo stack (`theme_snapshots`) restores a look, never a grant; the dev-only
 * `POST /api/v1/sites/__dev/prove-host` exists only where `DEV_OUTBOX=true` (404 in every deployed
 * config). Pure data: no bindings, so Node tests and scripts import it.
 */
import type { CredentialKind } from "../lib/credentials";

export const CREDENTIALS: readonly CredentialKind[] = [
  {
    id: "sites.custom_domain",
    service: "sites",
    title: "Proved custom host (primary domain or alias)",
    power:
      "the platform serves the site at the host: `GET /v1/sites/by-host` names the site, and the site's canonical host, content's URLs, feeds and webhooks use it",
    proof:
      "control of the host's DNS: a TXT record `_platform-verify.<host>` naming the site, or the host's own records pointing at the platform while a random sibling does not (a wildcard never proves); only the TXT proof takes a host from an unproved holder, and a proved holder is never displaced (docs/decisions/host-proof.md)",
    told: "nobody: the domain's owner published the records; the site's members see the host pending, its proof missing or lost, with the record to publish, in the site's health",
    undo: "remove the host from the site (`PATCH /api/v1/sites/{id}`, `primary_domain` null or `aliases` without it): its row goes, and a later re-add starts unproved",
    endedBy: ["undo", "site_deletion", "site_archival"],
    alsoEndsWhen: [
      "its proof stays missing for 72 h: the hourly sweep stops serving it (test/sites/host-proof.integration.test.ts, in the sites-fleet project)",
      "a platform operator's purge releases the host",
    ],
    survives: [
      {
        event: "site_transfer",
        why: "the host belongs to the site, not to the organization: the buyer's site keeps answering at the domain whose DNS names it, and the buyer's members see its proof in health",
      },
    ],
    tables: ["site_hosts"],
  },
  {
    id: "sites.markup",
    service: "sites",
    title: "Markup on the live site (the `code` permission and the `site:code` key scope)",
    power:
      "writes the settings the page outputs as markup or script: `code_injection`, `about_html`, `advanced` and the `html` of home builder blocks (`src/sites/site/settings/markup.ts`), on every write path of the settings document",
    proof:
      "the `code` permission (organization owners and admins, site owners, an organization the site is shared with as `site_owner`; `src/lib/site-permissions.ts`) or a secret key with `site:code` besides `site:write`, which only holders of `integrations` (who all hold `code`) can mint",
    told: "nobody at once: the markup is in the settings every member of the site reads",
    undo: "none for the grant itself: the person's role changes or the key is revoked; the markup is replaced by a PATCH of someone holding `code`",
    endedBy: ["member_demotion", "member_removal", "key_revocation", "site_transfer"],
    alsoEndsWhen: [
      "a person's session may carry the ended role for up to 30 s at the edge (the gateway's membership cache, `EDGE_CONTEXT_TTL`): identity has ended the grant at once, which the rows show with a new sign-in",
      "the key ends in any other way (`content.secret_key`)",
    ],
    tables: [],
  },
  {
    id: "sites.site_share",
    service: "sites",
    title: "Site share (another organization's access to the site)",
    power:
      "the shared organization's administrators read and edit the site with the share's role (`site_editor` by default; `site_owner` adds `code` and deletion), its plain members read; never `integrations`",
    proof:
      "an administrator of the owning organization with `members:manage` offers it (`POST /api/v1/auth/orgs/{org_id}/transfers`, `mode: share`) and an administrator of the receiving organization accepts it",
    told: "both organizations' transfer lists (`GET /api/v1/auth/orgs/{org_id}/transfers`: shares granted and received)",
    undo: "none yet: no operation ends a share; the owning organization can only transfer the site away",
    endedBy: ["site_transfer", "site_deletion", "site_archival"],
    alsoEndsWhen: ["a platform operator's purge deletes it with the site"],
    tables: ["site_shares"],
  },
];

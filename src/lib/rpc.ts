/**
 * Contracts of the service-binding RPC calls. Each service implements its side on its default
 * `WorkerEntrypoint`; callers type their binding with these interfaces (never by importing the
 * other service's code).
 */
import type { OperatorCapability, OrgMembership, SessionKind, SiteMembership } from "./edge";
import type { SettingsWriteCode } from "./settings-codes";
import { currentTraceparent, TRACEPARENT_HEADER, type TraceCarrier } from "./trace";

/** Identity -> gateway: what the edge attaches to a verified access token. */
export interface EdgeContext {
  user_id: string;
  /** False when the session was revoked or expired: the token must stop working. */
  session_active: boolean;
  session_kind: SessionKind;
  org_memberships: OrgMembership[];
  site_memberships: SiteMembership[];
  operator: OperatorCapability | null;
}

export interface IdentityRpc {
  /** null when the user no longer exists. */
  edgeContext(input: { user_id: string; session_id: string }): Promise<EdgeContext | null>;
  /**
   * A person's current grant on one site, read uncached (issue 34: content's dashboard writes re-read it on
   * each write instead of trusting the gateway's cached edge headers): the session's liveness, the
   * memberships of the site's organization (`org_id`, as content knows the owner) and of the site itself, in
   * the edge header's shape (the same SSO rule as `edgeContext`), and the display name (the write's byline,
   * so a write costs this one call). null when the account no longer exists.
   */
  siteGrant(input: SiteGrantQuery): Promise<SiteGrant | null>;
  /**
   * An MCP agent's OAuth grant as identity holds it now (issue 37, docs/decisions/oauth-agents.md): content
   * verifies the access token's signature itself and asks this for the grant's liveness and the person's
   * current memberships (reads cache the answer at most 60 s; writes ask afresh). null when no such grant.
   */
  agentAccess(input: { grant_id: string }): Promise<AgentAccess | null>;
}

/** An agent's grant on its site (`IdentityRpc.agentAccess`). */
export interface AgentAccess {
  grant_id: string;
  /** False once revoked or ended (by the person, a site member, a reset, a membership's end, a transfer...). */
  active: boolean;
  user_id: string;
  client_id: string;
  site_id: string;
  /** The scopes the person approved (content caps them again by the person's permissions now). */
  scopes: string[];
  /** The person's membership of the site's organization and of the site, in the edge header's shape. */
  org_memberships: OrgMembership[];
  site_memberships: SiteMembership[];
  display_name: string | null;
}

/** Whose grant on which site `IdentityRpc.siteGrant` reads. */
export interface SiteGrantQuery {
  user_id: string;
  session_id: string;
  site_id: string;
  org_id: string;
}

/** A person's grant on one site as identity holds it now (`IdentityRpc.siteGrant`). */
export interface SiteGrant {
  /** False when the session was revoked or expired (signed out everywhere, password reset, ...). */
  session_active: boolean;
  /** The person's membership of the site's organization (none or one). */
  org_memberships: OrgMembership[];
  /** The person's membership of the site (none or one). */
  site_memberships: SiteMembership[];
  display_name: string | null;
}

/** The part of a site that content keeps as its own projection (pushed by sites). */
export interface SiteProjection {
  id: string;
  org_id: string;
  slug: string;
  name: string;
  default_language: string;
  status: string;
  primary_domain: string | null;
  updated_at: string;
  /**
   * The forms app's switch, `settings.applets.forms.enabled` of the site (issue 12's applets routes write
   * it; until then a site PATCH of that key). Absent (an older sites deployment) leaves content's copy as is.
   */
  forms_enabled?: boolean;
}

export type ImageIngestResult =
  | { status: "ready"; url: string; media_id: string }
  /** Not finished in time, a transient failure, or ingest down: keep the external URL, swap later. */
  | { status: "pending"; reason: string }
  /** Definitive refusal: 404/410, not an image, too large, forbidden scheme, non-public host, hostile SVG. */
  | { status: "rejected"; definitive: true; reason: string };

/** A post type change refused as data (never a thrown error across the binding). */
export type PostTypeResult = { ok: true } | { ok: false; reason: string };
export type PostTypeRemoval = { ok: true; removed: boolean } | { ok: false; reason: string };

/** A site whose content (posts, media, API keys) is still stamped for an older organization after a transfer. */
export interface StalledConvergence {
  site_id: string;
  /** The newest owner content knows of (the applied transfer's, or the projection's when newer). */
  expected_org_id: string;
  /** Since when (RFC 3339) that organization owns the site. */
  since: string;
  stale_posts: number;
  stale_media: number;
  stale_keys: number;
}

/**
 * A site's integrations in content that accepting a `transfer` of it ends (carries over, suspended until
 * the new owner keeps them): its live API keys and its webhooks.
 */
export interface SiteIntegrations {
  site_id: string;
  api_keys: number;
  webhooks: number;
}

/**
 * A person's grant on a site ended (identity's member removal, role change, leaving, erasure; docs/decisions/grant-endings.md):
 * the API keys and webhooks that person created under it end too. `site`: the keys and webhooks the person
 * created on `site_id`. `org`: those stamped for `org_id` (made while it owned the site), except on
 * `except_site_ids` (sites where the person still holds `integrations` by a site role). Only credentials
 * created up to `ended_at` (identity's clock) end; later ones were granted afresh.
 */
export interface MemberGrantEnding {
  user_id: string;
  scope: "site" | "org";
  org_id: string | null;
  site_id: string | null;
  except_site_ids: string[];
  ended_at: string;
}

/** What content ended for a `MemberGrantEnding`: keys revoked, webhooks deleted (empty when nothing was live). */
export interface EndedIntegrations {
  api_keys: { id: string; site_id: string; name: string }[];
  webhooks: { id: string; site_id: string; url: string }[];
}

/** What the sites health sweep needs to know of a site's content (one call per chunk of sites). */
export interface SiteHealthFacts {
  site_id: string;
  /** A post or page is published (or scheduled and due). */
  has_published: boolean;
  /** A page (neither deleted nor archived) under /legal/ (`fields.secao = 'legal'`) or with slug `legal` or `legal-…`. */
  has_legal_pages: boolean;
}

/** The `fields` of a legal page (sites' legal page generator): what places it under /legal/. */
export interface LegalPageFields {
  secao: "legal";
  /** The catalog slug of the document; `indice` for the legal index (its page is /legal/ itself). */
  documento_legal: string;
  ordem: number;
}

/** One legal document written as a page of the site (`upsertLegalPage`). */
export interface LegalPageWrite {
  site_id: string;
  /** The staff user generating (the page's author; its byline is the site's name). */
  user_id: string;
  /** Slug of a new page (an existing page of the document keeps its own). */
  slug: string;
  title: string;
  /** Editor.js document of the generated text. */
  blocks: { blocks: unknown[] };
  fields: LegalPageFields;
}

/**
 * What `upsertLegalPage` did: `criada` (new draft), `atualizada` (a draft the generator wrote and nobody
 * edited since, rewritten), `existente_publicada` (a published or scheduled page: only its fields set),
 * `existente_preservada` (a hand-written or hand-edited page: only its fields set).
 */
export type LegalPageOutcome = "criada" | "atualizada" | "existente_publicada" | "existente_preservada";

/** A legal page as content holds it. `path` is below the site's origin (`/legal/…`); `url` is absolute. */
export interface LegalPage {
  post_id: string;
  documento_legal: string;
  ordem: number;
  slug: string;
  title: string;
  status: string;
  path: string;
  url: string;
}

/** The outcome of one legal page write, as data (a refusal never crosses the binding as a thrown error). */
export type LegalPageResult =
  | { ok: true; resultado: LegalPageOutcome; adotada: boolean; page: LegalPage }
  | { ok: false; code: string; detail: string };

export interface ContentRpc {
  syncSite(site: SiteProjection): Promise<void>;
  ingestImage(input: { site_id: string; url: string; purpose: string }): Promise<ImageIngestResult>;
  /**
   * Declares or updates a post type (CPT) of a site (an applet installed); `public: false` types are never
   * listed publicly. Defining a removed type again re-enables it. A malformed slug or name is refused.
   */
  definePostType(input: {
    site_id: string;
    slug: string;
    name: string;
    public: boolean;
  }): Promise<PostTypeResult>;
  /**
   * Disables a post type (its applet uninstalled): no longer listed nor usable for new posts, its posts
   * leave public view but are kept. `removed: false` when the site had no such enabled type. The built-in
   * `post` and `page` are refused.
   */
  removePostType(input: { site_id: string; slug: string }): Promise<PostTypeRemoval>;
  /**
   * Health: sites whose content is still stamped for an older organization more than 15 minutes after
   * their owner changed (oldest first, at most 100); empty when every transfer has converged.
   */
  stalledConvergence(): Promise<StalledConvergence[]>;
  /** Health facts of up to 100 sites, in request order (unknown sites: all false). */
  healthFacts(site_ids: string[]): Promise<SiteHealthFacts[]>;
  /** Live API keys and webhooks of up to 100 sites, in request order (unknown sites: zeros). */
  siteIntegrations(site_ids: string[]): Promise<SiteIntegrations[]>;
  /** Ends the keys and webhooks a person created under a grant that ended (idempotent; see MemberGrantEnding). */
  endMemberGrants(input: MemberGrantEnding): Promise<EndedIntegrations>;
  /**
   * Writes one legal document as a page of the site (one D1 batch): a new draft, or the document's
   * existing page (found by `fields.documento_legal`, else by slug) regenerated when the generator wrote
   * it and nobody edited it since, else only its `fields` set. Refusals come back as data.
   */
  upsertLegalPage(input: LegalPageWrite): Promise<LegalPageResult>;
  /** The site's legal pages that exist (not archived or deleted), in `ordem`; the index included. */
  legalPages(input: { site_id: string }): Promise<LegalPage[]>;
  /**
   * Starts moving a site's content to another group (issue 38, docs/decisions/site-groups.md "Moving a
   * site"): the move runs on its own (the site's SiteMover Durable Object). Refusals come back as data.
   */
  startSiteMove(input: { site_id: string; to: string; requested_by: string | null }): Promise<SiteMoveStart>;
  /** The site's latest move (running or finished), or null when content never moved it or does not know it. */
  siteMove(input: { site_id: string }): Promise<SiteMoveProgress | null>;
  /** Rolls the site's move back, possible until its switch (the operator's choice); refusals as data. */
  rollBackSiteMove(input: { site_id: string }): Promise<SiteMoveRollback>;
  /** Each configured content group with the number of sites it holds, in group order. */
  contentGroups(): Promise<ContentGroupCount[]>;
}

/** A content group and how many sites the directory places there. */
export interface ContentGroupCount {
  group: string;
  sites: number;
}

/** A site move's progress, as content's operator views show it. */
export interface SiteMoveProgress {
  site_id: string;
  from: string;
  to: string;
  /** copying (fences, copy), switching, cleaning (old rows deleted, caches), done; rolling_back, rolled_back. */
  state: "copying" | "switching" | "cleaning" | "done" | "rolling_back" | "rolled_back";
  /** The mover's step in finer grain (docs/decisions/site-groups.md). */
  phase: string;
  /** The table being copied or deleted now, or null. */
  table: string | null;
  rows_copied: number;
  rows_copied_by_table: Record<string, number>;
  rows_deleted: number;
  started_at: string;
  finished_at: string | null;
  /** How long the site's writes were refused (503 SITE_MOVING): from the source's fence to the switch. */
  longest_write_refusal_ms: number | null;
  /** Why the move rolled back, or the last failure of a step being retried. */
  error: string | null;
}

/** A move rolling back (or rolled back already), or why not: no move of the site, or it has switched. */
export type SiteMoveRollback =
  | { ok: true; move: SiteMoveProgress }
  | { ok: false; reason: "no_move" | "past_switch" };

/** A move started, or why not: an unknown site, a group not configured, the site's own group, a move running. */
export type SiteMoveStart =
  | { ok: true; move: SiteMoveProgress }
  | { ok: false; reason: "unknown_site" | "unknown_group" | "same_group" | "in_progress" };

/** A site's stored settings document as sites holds it. */
export interface StoredSiteSettings {
  /** `{}` when the stored value is not a JSON object (then `unreadable` is true). */
  settings: Record<string, unknown>;
  unreadable: boolean;
}

/**
 * A merge onto a site's settings document. Top-level merge: each key present replaces the stored
 * value of that key whole (no deep merge, as the sites PATCH replaces whole values); `null` removes the
 * key. `seo` is the same merge one level down, into `settings.seo`.
 */
export interface SiteSettingsMerge {
  site_id: string;
  /**
   * The writer may change settings that reach the page as markup (the key holds `site:code`); absent or
   * false: a merge that would change them is refused (`FORBIDDEN`, 403, nothing stored).
   */
  may_edit_markup?: boolean;
  settings?: Record<string, unknown>;
  seo?: Record<string, unknown>;
}

/**
 * The outcome of a settings write, as data (a refusal never crosses the RPC boundary as a thrown error):
 * the stored document after the write, or the code and status the sites PATCH would answer with.
 */
export type SiteSettingsWriteResult =
  | { ok: true; settings: Record<string, unknown> }
  | {
      ok: false;
      code: SettingsWriteCode;
      status: number;
      detail: string;
      /** The validator's `details` (`{ path }`: the JSON path of the refused key or value), as the sites PATCH gives them. */
      details?: Record<string, unknown>;
      /** With IMAGEM_EXTERNA_INVALIDA: the refused images (up to 20), as the sites PATCH lists them. */
      invalid_images?: unknown[];
    }
  /** The merge would change markup settings and `may_edit_markup` was not set (content: scope `site:code`). */
  | { ok: false; code: "FORBIDDEN"; status: 403; detail: string };

/** A site as identity's consent page offers it (`SitesRpc.memberSites`). */
export interface MemberSite {
  id: string;
  org_id: string;
  name: string;
  host: string;
}

export interface SitesRpc {
  /** Moves (or shares) a site between organizations; called by identity when a transfer is accepted. */
  applyTransfer(input: {
    site_id: string;
    from_org_id: string;
    to_org_id: string;
    mode: "transfer" | "share";
    share_role: string | null;
  }): Promise<{ ok: boolean }>;
  /**
   * Content's integrations of up to 100 sites (keys, webhooks), in request order, as content counts them:
   * what a transfer offer tells the destination will stop working (identity has no binding to content).
   */
  siteIntegrations(site_ids: string[]): Promise<SiteIntegrations[]>;
  /** Relays `ContentRpc.endMemberGrants` for identity (which has no binding to content). */
  endMemberGrants(input: MemberGrantEnding): Promise<EndedIntegrations>;
  /** Names of up to 100 visible sites (identity's account deletion and export); unknown ids are left out. */
  siteNames(site_ids: string[]): Promise<{ id: string; name: string }[]>;
  /** Owner organization of a live site, or null. */
  siteOrg(site_id: string): Promise<{ org_id: string; status: string } | null>;
  /**
   * Identity's OAuth consent (issue 37): the live sites owned by these organizations or with these ids (a
   * person's memberships; shares left out), name order, at most 200, each with its canonical host.
   */
  memberSites(input: { org_ids: string[]; site_ids: string[] }): Promise<MemberSite[]>;
  /** The stored settings document of a live site; null for a missing, deleted or archived site. */
  siteSettings(site_id: string): Promise<StoredSiteSettings | null>;
  /**
   * Merges onto the stored document, runs the settings validator and the image rehosting of the sites
   * PATCH, and stores with a compare-and-swap (nothing stored on refusal); then the same cache
   * invalidation and push to content as the PATCH. A missing or hidden site is NOT_FOUND.
   */
  mergeSiteSettings(input: SiteSettingsMerge): Promise<SiteSettingsWriteResult>;
}

/**
 * Narrows a generated `Fetcher` binding to the RPC contract it serves, carrying the current trace
 * (src/lib/trace.ts): an RPC call gets one more, last argument `{ __traceparent }` (the callee's
 * `traceEntrypoint` takes it off before its method runs; a method that never looks past its own
 * parameters is unaffected), and `fetch` a `traceparent` header. Outside a trace, calls go as they are.
 */
export function rpc<T>(binding: Fetcher): T & Fetcher {
  return new Proxy(binding, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function" || typeof prop !== "string" || prop === "connect") return value;
      if (prop === "fetch") {
        return (input: RequestInfo | URL, init?: RequestInit) => {
          const traceparent = currentTraceparent();
          if (!traceparent) return target.fetch(input, init);
          const request = new Request(input, init);
          if (!request.headers.has(TRACEPARENT_HEADER)) request.headers.set(TRACEPARENT_HEADER, traceparent);
          return target.fetch(request);
        };
      }
      return (...args: unknown[]) => {
        const traceparent = currentTraceparent();
        const carrier: TraceCarrier[] = traceparent ? [{ __traceparent: traceparent }] : [];
        return Reflect.apply(value, target, [...args, ...carrier]);
      };
    },
  }) as unknown as T & Fetcher;
}

/**
 * Contracts of the service-binding RPC calls. Each service implements its side on its default
 * `WorkerEntrypoint`; callers type their binding with these interfaces (never by importing the
 * other service's code).
 */
import type { OperatorCapability, OrgMembership, SessionKind, SiteMembership } from "./edge";

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

export interface ContentRpc {
  syncSite(site: SiteProjection): Promise<void>;
  ingestImage(input: { site_id: string; url: string; purpose: string }): Promise<ImageIngestResult>;
  /** Declares or updates a post type (CPT) of a site; `public: false` types are never listed publicly. */
  definePostType(input: { site_id: string; slug: string; name: string; public: boolean }): Promise<void>;
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
  /** Owner organization of a live site, or null. */
  siteOrg(site_id: string): Promise<{ org_id: string; status: string } | null>;
}

/** Narrows a generated `Fetcher` binding to the RPC contract it serves. */
export function rpc<T>(binding: Fetcher): T & Fetcher {
  return binding as unknown as T & Fetcher;
}

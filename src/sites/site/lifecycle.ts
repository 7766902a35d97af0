/**
 * The site lifecycle (docs/decisions/sites.md, "Site lifecycle"). Statuses:
 * - `active`: published; customers see and edit it; `by-host` serves it.
 * - `inactive`: unpublished by an operator (deactivate); customers still see and edit it, `by-host` no
 *   longer serves it.
 * - `archived`: set aside by an operator; invisible to customers (like a missing site).
 * - `deleted`: the customer's soft delete; invisible to customers, reversible.
 * Operator transitions apply from any state: deactivate -> `inactive`, archive -> `archived`, restore ->
 * the live state the site left (`previous_status` when `active` or `inactive`, else `active`; restoring an
 * `inactive` site publishes it). A transition to the state the site is in changes nothing.
 */

export const SITE_STATUSES = ["active", "inactive", "archived", "deleted"] as const;
export type SiteStatus = (typeof SITE_STATUSES)[number];

export const TRANSITIONS = ["deactivate", "archive", "restore"] as const;
export type Transition = (typeof TRANSITIONS)[number];

const LIVE: readonly string[] = ["active", "inactive"];

export function isSiteStatus(value: string): value is SiteStatus {
  return (SITE_STATUSES as readonly string[]).includes(value);
}

/** The status `transition` leads to from a site in `status` that left `previousStatus` before. */
export function transitionTarget(
  transition: Transition,
  site: { status: string; previous_status: string | null },
): SiteStatus {
  if (transition === "deactivate") return "inactive";
  if (transition === "archive") return "archived";
  if (site.status === "active" || site.status === "inactive") return "active";
  return site.previous_status !== null && LIVE.includes(site.previous_status)
    ? (site.previous_status as SiteStatus)
    : "active";
}

/** Every status but `deleted` counts against the organization's site limit. */
export function countsAgainstLimit(status: string): boolean {
  return status !== "deleted";
}

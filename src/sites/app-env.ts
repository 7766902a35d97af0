import type { SiteRow } from "./store";

/** Hono environment of the sites app: bindings plus the site the by-id guard loaded. */
export interface SitesAppEnv {
  Bindings: SitesEnv;
  Variables: { site?: SiteRow; sharedWith?: string[] };
}

/** The authenticated API key of a `/v1` request, as handlers read it from `c.get("auth")`. */
import type { KeyKind } from "./key-hash";
import type { Scope } from "./scopes";

export interface KeyContext {
  keyId: string;
  siteId: string;
  kind: KeyKind;
  scopes: ReadonlySet<Scope>;
  /** The staff user who created the key (authorship context); null on legacy keys. */
  createdBy: string | null;
  /** Display name of the creator's byline (authorship context); null on keys created before it was recorded. */
  authorName: string | null;
}

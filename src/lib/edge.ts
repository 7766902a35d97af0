import { z } from "zod";

/**
 * The edge contract: headers the gateway sets from the verified identity. Every client-sent copy is
 * stripped at the gateway, which signs the ones it sets (`x-edge-signature`, src/lib/edge-trust.ts); a
 * service keeps them only when that signature verifies and otherwise drops them all (an anonymous
 * caller), so a direct call cannot forge them even where a service is reachable without the gateway.
 */
export const EDGE_HEADERS = {
  userId: "x-user-id",
  orgMemberships: "x-org-memberships",
  siteMemberships: "x-site-memberships",
  platformOperator: "x-platform-operator",
  sessionKind: "x-session-kind",
  sessionId: "x-session-id",
} as const;

export const EDGE_HEADER_NAMES: readonly string[] = Object.values(EDGE_HEADERS);

/** `t=<unix seconds>,v1=<base64url HMAC>`: the gateway's signature over the edge headers. */
export const EDGE_SIGNATURE_HEADER = "x-edge-signature";
/** Set by a service's `edgeTrust` only after the signature verified (a client's copy is always removed). */
export const EDGE_VERIFIED_HEADER = "x-edge-verified";
/** Headers of the contract a client may never send: the gateway and each service remove client copies. */
export const EDGE_CONTROL_HEADERS: readonly string[] = [EDGE_SIGNATURE_HEADER, EDGE_VERIFIED_HEADER];

/**
 * `owner`: the role is the scope's structural owner role (identity's `is_system`), the only way a
 * service recognises an owner (never by the role's name); absent = not an owner.
 */
export const OrgMembershipSchema = z.object({
  org_id: z.string(),
  role: z.string(),
  permissions: z.array(z.string()).default([]),
  owner: z.boolean().optional(),
});
/** `permissions`: a custom site role's own (by name, src/lib/site-permissions.ts); presets carry none. */
const SiteMembershipSchema = z.object({
  site_id: z.string(),
  role: z.string(),
  permissions: z.array(z.string()).default([]),
  owner: z.boolean().optional(),
});

export type OrgMembership = z.infer<typeof OrgMembershipSchema>;
export type SiteMembership = z.infer<typeof SiteMembershipSchema>;
export type OperatorCapability = "operator_read" | "operator_admin";
export type SessionKind = "staff" | "reader";

/** What the edge knows about a caller, as the services read it back from the headers. */
export interface EdgeIdentity {
  userId: string | null;
  sessionId: string | null;
  /** null when the header is absent (a service-to-service caller); [] when present and empty. */
  orgMemberships: OrgMembership[] | null;
  siteMemberships: SiteMembership[] | null;
  operator: OperatorCapability | null;
  sessionKind: SessionKind | null;
  /**
   * True only when the gateway's signature over these headers verified (`edgeTrust`). An unverified
   * request has no edge headers left, and is anonymous: never a service caller.
   */
  verified: boolean;
}

function parseJsonHeader<T>(value: string | null, schema: z.ZodType<T>): T | null {
  if (value === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(value));
    // A malformed header grants nothing: fail closed to "present but empty".
    return parsed.success ? parsed.data : ([] as unknown as T);
  } catch {
    return [] as unknown as T;
  }
}

export function readEdgeIdentity(headers: Headers): EdgeIdentity {
  const operator = headers.get(EDGE_HEADERS.platformOperator);
  const kind = headers.get(EDGE_HEADERS.sessionKind);
  return {
    userId: headers.get(EDGE_HEADERS.userId),
    sessionId: headers.get(EDGE_HEADERS.sessionId),
    orgMemberships: parseJsonHeader(headers.get(EDGE_HEADERS.orgMemberships), z.array(OrgMembershipSchema)),
    siteMemberships: parseJsonHeader(
      headers.get(EDGE_HEADERS.siteMemberships),
      z.array(SiteMembershipSchema),
    ),
    operator: operator === "operator_read" || operator === "operator_admin" ? operator : null,
    sessionKind: kind === "staff" || kind === "reader" ? kind : null,
    verified: headers.get(EDGE_VERIFIED_HEADER) === "1",
  };
}

/** Serializes header JSON as ASCII only (non-ASCII escaped), as the edge contract requires. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

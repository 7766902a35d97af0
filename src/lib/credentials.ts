/**
 * The credential rule as data (issue 31): every way into an account or a site costs proof in proportion to
 * its power, the owner is told at once with a one-click undo, and it ends when what granted it ends.
 * Each service lists the credential kinds it issues or honours in its own `credentials.ts`
 * (`src/identity/credentials.ts`, `src/content/credentials.ts`, `src/sites/credentials.ts`); the matrix test
 * (`test/e2e/credential-matrix.test.ts`) performs every (kind, ending event) pair a registry names through the
 * public API and asserts the credential no longer works; `docs/decisions/credentials.md` is generated from
 * the registries (`renderCredentialsDoc`), never written by hand.
 *
 * Pure data and a pure renderer: no bindings, no I/O, so Node tests and scripts import it as it is.
 */

/** The events that can end a credential, each performed through the public API by the matrix test. */
export const ENDING_EVENTS = {
  password_reset: "the account's password is reset (`POST /auth/password/reset/confirm`)",
  password_change: "the account's password is changed (`POST /auth/password/change`)",
  sign_out_everywhere: "every session of the account is ended (`DELETE /auth/sessions`)",
  account_deletion: "the account is erased after its deletion's grace period",
  member_removal: "the member is removed from the organization or the site",
  member_demotion: "the member's role changes to one without the permission that granted it",
  site_transfer: "the site is transferred to another organization",
  site_deletion: "the site is deleted",
  site_archival: "the site is archived",
  key_revocation: "the API key that made it is revoked",
  post_deletion: "the post it belongs to is deleted",
  sso_enforcement: "the organization turns SSO enforcement on",
  sso_removal: "the organization's SSO configuration is removed or replaced",
  factor_removal: "the factor it belongs to is removed",
  undo: "the owner's one-click undo of its creation",
  rotation: "it is rotated or replaced by a new one of its kind",
  use: "it is used (single use)",
} as const;

export type EndingEvent = keyof typeof ENDING_EVENTS;

export type CredentialService = "identity" | "content" | "sites";

/** One credential kind as the rule sees it. */
export interface CredentialKind {
  /** Stable id, `<service>.<name>`, e.g. `identity.passkey`; the matrix rows are keyed by it. */
  readonly id: string;
  readonly service: CredentialService;
  /** What it is, in a reader's words. */
  readonly title: string;
  /** What it lets its holder do. */
  readonly power: string;
  /** The proof it costs to add one. */
  readonly proof: string;
  /** Who is told at once when one is added ("nobody: …" with the reason when no one is). */
  readonly told: string;
  /** The one-click undo ("none: …" with the reason when there is none). */
  readonly undo: string;
  /** The events that end it; each (kind, event) pair has its row in the matrix test. */
  readonly endedBy: readonly EndingEvent[];
  /** Endings the matrix cannot perform through the API (expiry, the hourly run), each with how it is tested. */
  readonly alsoEndsWhen?: readonly string[];
  /** Events a reader might expect to end it that deliberately do not, each with why. */
  readonly survives?: readonly { readonly event: EndingEvent; readonly why: string }[];
  /**
   * The tables of the service's schema (`schema/<service>.ts`, SQL names) that hold this kind's secrets or
   * grants: a structure test requires every table holding a secret, a hash or a grant to be claimed by a
   * kind, so a new way in cannot be stored without a registry entry.
   */
  readonly tables: readonly string[];
}

/** One pair of the matrix: the key the matrix rows use. */
export function pairKey(kind: CredentialKind, event: EndingEvent): string {
  return `${kind.id} × ${event}`;
}

/** Every (kind, event) pair of the given registries. */
export function credentialPairs(registries: readonly (readonly CredentialKind[])[]): string[] {
  return registries.flat().flatMap((kind) => kind.endedBy.map((event) => pairKey(kind, event)));
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** `docs/decisions/credentials.md`, rendered from the registries. */
export function renderCredentialsDoc(registries: readonly (readonly CredentialKind[])[]): string {
  const kinds = registries.flat();
  const lines = [
    "# Credentials: the registry and its ending matrix",
    "",
    "<!-- Generated from src/*/credentials.ts by `npm run credentials`; a unit test keeps it current. Do not edit by hand. -->",
    "",
    "Every credential we issue or honour holds to one rule: **a new way into an account (or a site) costs",
    "proof in proportion to its power, the owner is told at once with a one-click undo, and it ends when what",
    "granted it ends.** This file is generated from the registries in `src/identity/credentials.ts`,",
    "`src/content/credentials.ts` and `src/sites/credentials.ts` (types in `src/lib/credentials.ts`). What was",
    "decided about them: `docs/decisions/credential-matrix.md` (the machinery, identity's kinds) and",
    "`docs/decisions/credential-registry.md` (content's and sites').",
    "",
    "## Adding a credential",
    "",
    "1. Add its kind to its service's `credentials.ts`: the proof, who is told, the undo, the events that end",
    "   it, and the tables that hold it. A table holding a secret, a hash or a grant that no kind claims fails",
    "   `test/structure/credential-registry.unit.test.ts`.",
    "2. Add one row per ending event to the matrix (`test/e2e/credential-matrix/<service>.ts`): make the",
    "   credential, show it works, perform the event through the public API, show it no longer works.",
    "   A single-use credential's use before the event spends a sibling or a twin made the same way; a row",
    "   whose credential another row's event would end too is marked `alone`. Rows run concurrently, each",
    "   from a client address of its own. `test/e2e/credential-matrix.test.ts` fails on a pair without a",
    "   row and on a row without a pair.",
    "3. Run `npm run credentials` to regenerate this file.",
    "",
    "## Ending events",
    "",
    "| event | what happens |",
    "|---|---|",
    ...Object.entries(ENDING_EVENTS).map(([event, text]) => `| \`${event}\` | ${cell(text)} |`),
    "",
  ];
  for (const service of ["identity", "content", "sites"] as const) {
    const mine = kinds.filter((k) => k.service === service);
    if (mine.length === 0) continue;
    lines.push(`## ${service}`, "");
    for (const k of mine) {
      lines.push(
        `### ${k.title} (\`${k.id}\`)`,
        "",
        `- **Power:** ${k.power}`,
        `- **Proof to add one:** ${k.proof}`,
        `- **Told:** ${k.told}`,
        `- **Undo:** ${k.undo}`,
        `- **Ends on** (matrix rows): ${k.endedBy.length ? k.endedBy.map((e) => `\`${e}\``).join(", ") : "none"}`,
      );
      if (k.alsoEndsWhen?.length) lines.push(`- **Also ends when:** ${k.alsoEndsWhen.join("; ")}`);
      for (const s of k.survives ?? []) lines.push(`- **Survives \`${s.event}\`:** ${s.why}`);
      lines.push(
        `- **Stored in:** ${k.tables.length ? k.tables.map((t) => `\`${t}\``).join(", ") : "no table"}`,
        "",
      );
    }
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

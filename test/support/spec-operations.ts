/**
 * The operations of the three specs, read from their markdown (pure: text in, list out), so tests can
 * hold the code to the spec: every operation is in its service's OpenAPI document or listed in
 * `docs/not-built.md`. Each spec names its operations its own way:
 * - identity: the bullets of "## Endpoints" that start with `` `METHOD /path` ``; paths are relative to
 *   `{auth_url}/api/v1` (through the gateway `/api/v1/auth/...`), probes and discovery at the root;
 * - content: Table A's `` **`METHOD /path`** `` headings, and Table B's rows, which give only a summary:
 *   their method and path come from ARCHITECTURE.md's addendum sentence, pairs taken in order;
 * - sites: every `` `METHOD /v1/...` `` in the bullets of "## Endpoints"; paths are relative to
 *   `{base_url}`, which ends in `/api`.
 * Each count is checked against the number the spec's Versioning section states.
 */
import type { SpecTexts } from "./corpora-types.ts";

export type ServiceName = "identity" | "content" | "sites";
export const SERVICES: readonly ServiceName[] = ["identity", "content", "sites"];

export interface SpecOperation {
  service: ServiceName;
  method: string;
  /** The path as the spec (or, for content's Table B, ARCHITECTURE.md) writes it. */
  specPath: string;
  /** The path in the service's OpenAPI document (what the gateway routes). */
  path: string;
  /** Content's Table B rows: the summary the spec identifies the operation by. */
  summary?: string;
}

const METHOD = "GET|POST|PUT|PATCH|DELETE";

/** `{id}`, `{site_id}` and `{reference}` are the same path: parameter names do not matter. */
export function normalizePath(path: string): string {
  return path.replace(/\{[^}]+\}/g, "{}");
}

export function operationKey(op: { method: string; path: string }): string {
  return `${op.method.toUpperCase()} ${normalizePath(op.path)}`;
}

/** The lines of a `## Heading` section, up to the next level-2 heading. */
function section(markdown: string, heading: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The operation count the spec's Versioning section states ("... with 49 operations"). */
export function statedOperationCount(markdown: string): number {
  const match = /with (\d+) operations/.exec(section(markdown, "Versioning").join("\n"));
  if (!match) throw new Error('the Versioning section states no "with N operations"');
  return Number(match[1]);
}

/** The reference version the spec's Versioning section states. */
export function referenceVersion(markdown: string): string {
  const match = /reference version is (\d+\.\d+\.\d+)/.exec(section(markdown, "Versioning").join("\n"));
  if (!match) throw new Error("the Versioning section states no reference version");
  return match[1]!;
}

function identityGatewayPath(path: string): string {
  return path.startsWith("/auth/") ? `/api/v1${path}` : path;
}

/** Where an operation the spec writes as `specPath` sits in its service's OpenAPI document. */
export function gatewayPath(service: ServiceName, specPath: string): string {
  if (service === "identity") return identityGatewayPath(specPath);
  if (service === "sites") return `/api${specPath}`;
  return specPath;
}

export function identityOperations(markdown: string): SpecOperation[] {
  const bullet = new RegExp(`^- \`(${METHOD}) (/\\S+)\``);
  return section(markdown, "Endpoints").flatMap((line) => {
    const m = bullet.exec(line);
    if (!m) return [];
    const [, method, specPath] = m as unknown as [string, string, string];
    return [{ service: "identity" as const, method, specPath, path: gatewayPath("identity", specPath) }];
  });
}

/**
 * Operations the identity spec names outside its Endpoints list ("Operations referenced elsewhere"):
 * not among the stated count.
 */
export function identityReferencedOperations(markdown: string): SpecOperation[] {
  const sentence = section(markdown, "Endpoints").find((l) =>
    l.startsWith("Operations referenced elsewhere"),
  );
  if (!sentence) throw new Error('no "Operations referenced elsewhere" sentence');
  return [...sentence.matchAll(new RegExp(`\`(${METHOD}) (/[^\`\\s]+)\``, "g"))].map((m) => {
    const [, method, specPath] = m as unknown as [string, string, string];
    const path = specPath.startsWith("/v1/auth/") ? `/api${specPath}` : identityGatewayPath(specPath);
    return { service: "identity" as const, method, specPath, path };
  });
}

/** The verb that opens a Table B summary says the method. */
const SUMMARY_VERBS: Record<string, string> = {
  List: "GET",
  Get: "GET",
  Read: "GET",
  Analytics: "GET",
  Bulk: "GET",
  Liveness: "GET",
  Readiness: "GET",
  Metrics: "GET",
  Update: "PATCH",
  Delete: "DELETE",
  Unpublish: "POST",
};

/** The `METHOD /path` list of ARCHITECTURE.md's "Content operations the spec lists by summary only" sentence. */
export function contentSummaryPaths(architecture: string): { method: string; path: string }[] {
  const start = architecture.indexOf("Content operations the spec lists by summary only live at:");
  if (start < 0) throw new Error("ARCHITECTURE.md has no sentence placing content's summary-only operations");
  const end = architecture.indexOf("`.", start);
  const sentence = architecture.slice(start, end + 1);
  return [...sentence.matchAll(/`((?:[A-Z]+\|)*[A-Z]+) (\/[^`\s]+)`/g)].flatMap((m) => {
    const [, methods, path] = m as unknown as [string, string, string];
    return methods.split("|").map((method) => ({ method, path }));
  });
}

export function contentOperations(markdown: string, architecture: string): SpecOperation[] {
  const lines = section(markdown, "Endpoints");
  const tableA = lines.flatMap((line) => {
    const m = new RegExp(`^\\*\\*\`(${METHOD}) (/\\S+)\`\\*\\*`).exec(line);
    if (!m) return [];
    const [, method, path] = m as unknown as [string, string, string];
    return [{ service: "content" as const, method, specPath: path, path }];
  });
  const tableBStart = lines.findIndex((l) => l.startsWith("### Table B"));
  if (tableBStart < 0) throw new Error('no "### Table B" in the content spec');
  const headerRow = lines.findIndex((l, i) => i > tableBStart && l.startsWith("| Operation |"));
  const summaries: string[] = [];
  for (const line of lines.slice(headerRow + 2)) {
    if (!line.startsWith("|")) break;
    summaries.push(line.split("|")[1]!.trim());
  }
  const placed = contentSummaryPaths(architecture);
  if (placed.length !== summaries.length) {
    throw new Error(
      `Table B has ${summaries.length} operations, ARCHITECTURE.md places ${placed.length}: they must pair one to one`,
    );
  }
  const tableB = summaries.map((summary, i) => {
    const { method, path } = placed[i]!;
    const verb = summary.split(" ")[0]!;
    if (SUMMARY_VERBS[verb] !== method) {
      throw new Error(
        `Table B row ${i + 1} "${summary}" pairs with ${method} ${path}: the summary's verb says ${SUMMARY_VERBS[verb] ?? "nothing known"}`,
      );
    }
    return { service: "content" as const, method, specPath: path, path, summary };
  });
  return [...tableA, ...tableB];
}

export function sitesOperations(markdown: string): SpecOperation[] {
  return section(markdown, "Endpoints")
    .filter((line) => line.startsWith("- "))
    .flatMap((line) =>
      [...line.matchAll(new RegExp(`\`(${METHOD}) (/v1/[^\`\\s]+)\``, "g"))].map((m) => {
        const [, method, specPath] = m as unknown as [string, string, string];
        return { service: "sites" as const, method, specPath, path: gatewayPath("sites", specPath) };
      }),
    );
}

export function specOperations(texts: Omit<SpecTexts, "notBuilt">): Record<ServiceName, SpecOperation[]> {
  return {
    identity: identityOperations(texts.identity),
    content: contentOperations(texts.content, texts.architecture),
    sites: sitesOperations(texts.sites),
  };
}

export interface NotBuiltEntry {
  service: ServiceName;
  method: string;
  /** The path as the spec writes it. */
  specPath: string;
  issue: string;
  reason: string;
}

/**
 * `docs/not-built.md`: one `## <service>` section per service, each a table
 * `| method | path (spec) | issue | reason |`.
 */
export function parseNotBuilt(markdown: string): NotBuiltEntry[] {
  const entries: NotBuiltEntry[] = [];
  let service: ServiceName | undefined;
  for (const line of markdown.split("\n")) {
    const heading = /^## (\w+)\s*$/.exec(line);
    if (heading) {
      const name = heading[1]!;
      if (!(SERVICES as readonly string[]).includes(name))
        throw new Error(`not-built.md: unknown service ${name}`);
      service = name as ServiceName;
      continue;
    }
    if (!line.startsWith("|")) continue;
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells[0] === "method" || /^-+$/.test(cells[0] ?? "")) continue;
    if (!service) throw new Error(`not-built.md: a row before any "## <service>" heading: ${line}`);
    const [method, path, issue, reason] = cells;
    if (cells.length !== 4 || !method || !path || !issue || !reason) {
      throw new Error(`not-built.md: a row needs method, path, issue and reason: ${line}`);
    }
    entries.push({ service, method, specPath: path.replace(/`/g, ""), issue, reason });
  }
  return entries;
}

/** The spec operations of a service that are built: all but those docs/not-built.md lists. */
export function builtSpecOperations(texts: SpecTexts, service: ServiceName): SpecOperation[] {
  const notBuilt = new Set(
    parseNotBuilt(texts.notBuilt)
      .filter((e) => e.service === service)
      .map((e) => operationKey({ method: e.method, path: gatewayPath(service, e.specPath) })),
  );
  return specOperations(texts)[service].filter((op) => !notBuilt.has(operationKey(op)));
}

/** Whether an operation's path carries a parameter (`{id}`, `{reference}`, ...). */
export function hasPathParameter(op: { path: string }): boolean {
  return /\{[^}]+\}/.test(op.path);
}

/**
 * The operations identity's Authentication rule 3 names as step-up operations (the `METHOD /path` it
 * lists; "both variants" of `DELETE /auth/sessions` are one operation), as gateway paths.
 */
export function identityStepUpOperations(markdown: string): { method: string; path: string }[] {
  const rule = section(markdown, "Authentication").find((l) => /^3\. Step-up:/.test(l.trim()));
  if (!rule) throw new Error("identity.md's Authentication section has no rule 3 (Step-up)");
  return [...rule.matchAll(new RegExp(`\`(${METHOD}) (/[^\`\\s]+)\``, "g"))].map((m) => ({
    method: m[1]!,
    path: gatewayPath("identity", m[2]!),
  }));
}

/**
 * Declared extensions of the spec's closed list of step-up operations, each with its issue: they answer
 * 428 STEP_UP_REQUIRED, 401 CODE_INVALID and 503 STEP_UP_UNAVAILABLE as the spec's step-up operations
 * do (docs/decisions/step-up.md). Adding a TOTP or a phone to an account that already has a factor
 * costs the step-up on the ceremony's first call (#18); every passkey registration does, the account's
 * first included, since a passkey signs in alone (#31). Approving an MCP agent that writes costs a fresh sign-in
 * or the step-up, bound to the consent (#37, docs/decisions/oauth-agents.md "Consent").
 */
export const STEP_UP_EXTENSIONS: readonly { method: string; specPath: string; issue: string }[] = [
  { method: "POST", specPath: "/auth/mfa/totp", issue: "#18" },
  { method: "POST", specPath: "/auth/mfa/phone/start", issue: "#18" },
  { method: "POST", specPath: "/auth/mfa/passkey/register/begin", issue: "#31" },
  { method: "PUT", specPath: "/auth/orgs/{org_id}/sso", issue: "#24" },
  { method: "DELETE", specPath: "/auth/orgs/{org_id}/sso", issue: "#24" },
  { method: "DELETE", specPath: "/auth/account", issue: "#24" },
  { method: "POST", specPath: "/auth/account/export", issue: "#24" },
  { method: "POST", specPath: "/auth/oauth/consents/{id}/approve", issue: "#37" },
];

/**
 * Operations built beyond the specs' closed lists, each with its issue (gateway paths): each must be in
 * its service's OpenAPI document and must not be a spec operation (test/gateway/spec-coverage.unit.test.ts).
 */
export const BEYOND_SPEC_OPERATIONS: readonly {
  service: ServiceName;
  method: string;
  path: string;
  issue: string;
}[] = [
  { service: "sites", method: "GET", path: "/api/v1/sites", issue: "#23" },
  { service: "identity", method: "GET", path: "/api/v1/auth/me", issue: "#23" },
  // The operator moves a site's content between content groups, and sees the groups (docs/decisions/site-groups.md).
  { service: "sites", method: "POST", path: "/api/v1/platform/sites/{site_id}/group-move", issue: "#38" },
  { service: "sites", method: "GET", path: "/api/v1/platform/sites/{site_id}/group-move", issue: "#38" },
  {
    service: "sites",
    method: "POST",
    path: "/api/v1/platform/sites/{site_id}/group-move/rollback",
    issue: "#38",
  },
  { service: "sites", method: "GET", path: "/api/v1/platform/content-groups", issue: "#38" },
];

/**
 * The OAuth protocol endpoints (issue 37): their error language is the RFCs', not the platform's problem
 * documents, because OAuth clients (the MCP SDKs, oauth4webapi) parse `{error, error_description}` there:
 * registration (RFC 7591 §3.2.2; unknown metadata is ignored, §2), the token endpoint (RFC 6749 §5.2) and
 * revocation (RFC 7009 §2.2.1). The sweeps of the platform's error language and strict input skip them;
 * their own tests hold them to the RFCs (test/identity/oauth-clients.integration.test.ts,
 * oauth-token.integration.test.ts, oauth-token-refresh.integration.test.ts).
 */
export const OAUTH_PROTOCOL_OPERATIONS: ReadonlySet<string> = new Set([
  "POST /api/v1/auth/oauth/register",
  "POST /api/v1/auth/oauth/token",
  "POST /api/v1/auth/oauth/revoke",
]);

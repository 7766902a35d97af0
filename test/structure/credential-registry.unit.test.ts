/**
 * The credential registries (issue 31; `src/lib/credentials.ts`) against the schemas: a way in cannot be
 * stored without a registry entry. Every table of `schema/<service>.ts` that holds a secret, a hash, a token
 * or a grant must be claimed by a kind of that service's registry (`tables`), or be listed below with the
 * reason it is none; every table a kind claims exists; every kind is well formed and says how it ends. The
 * matrix test (test/e2e/credential-matrix.test.ts) holds each (kind, event) pair to its row.
 */
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as contentSchema from "../../schema/content";
import * as identitySchema from "../../schema/identity";
import * as sitesSchema from "../../schema/sites";
import { type CredentialService, ENDING_EVENTS } from "../../src/lib/credentials";
import { CREDENTIAL_SERVICES, registries } from "../support/credential-registries";

/**
 * A column holding a secret or a proof of one: a hash (`*_hash`), a secret (`secret*`, `*_enc`, `*_sealed`,
 * `*_encrypted`), a token, a credential, or a ceremony's challenge, verifier or nonce, or a public key.
 */
const SECRET_COLUMN =
  /(_hash$|secret|token|credential|_sealed$|_enc$|_encrypted$|^challenge$|verifier|^nonce$|^public_key$)/;

/**
 * Tables that hold a grant (a way into an account, an organization or a site) without a secret column:
 * memberships, addresses and phones that sign in or receive codes, offers, provider links, capabilities.
 */
const GRANT_TABLES: Record<CredentialService, readonly string[]> = {
  identity: [
    "email_addresses",
    "phones",
    "platform_operators",
    "org_memberships",
    "site_memberships",
    "transfer_ended_site_memberships",
    "transfers",
    "sso_domains",
    "sso_identities",
    "sso_sessions",
    "sso_break_glass",
    "account_deletions",
    "outbox_messages",
  ],
  content: [],
  sites: ["site_hosts", "site_shares"],
};

/** Tables the rules above find that hold no credential, each with the reason. */
const NOT_CREDENTIALS: Record<CredentialService, Record<string, string>> = {
  identity: {
    outbox_messages:
      "the development outbox (DEV_OUTBOX, which every deploy refuses): copies of the mail, whose codes and links are the kinds that claim otp_codes and invitations",
  },
  content: {
    idempotency_records: "request_hash is a fingerprint of a request body, to answer its replay; no secret",
    import_lines: "line_hash identifies an imported line, to import it once; no secret",
    leads: "content_hash finds a duplicate submission; no secret",
  },
  sites: {},
};

const SCHEMAS: Record<CredentialService, Record<string, unknown>> = {
  identity: identitySchema,
  content: contentSchema,
  sites: sitesSchema,
};

function tablesOf(service: CredentialService): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  for (const value of Object.values(SCHEMAS[service])) {
    if (!(value instanceof SQLiteTable)) continue;
    const config = getTableConfig(value);
    tables.set(
      config.name,
      config.columns.map((c) => c.name),
    );
  }
  return tables;
}

/** The tables of a service's schema that hold a secret, a hash, a token or a grant. */
function credentialTables(service: CredentialService): string[] {
  return [...tablesOf(service)]
    .filter(
      ([name, columns]) => GRANT_TABLES[service].includes(name) || columns.some((c) => SECRET_COLUMN.test(c)),
    )
    .map(([name]) => name)
    .sort();
}

describe("the credential registries", () => {
  it("exist for every service: src/<service>/credentials.ts exporting CREDENTIALS", () => {
    expect(CREDENTIAL_SERVICES.filter((s) => !registries[s])).toEqual([]);
  });

  const all = CREDENTIAL_SERVICES.flatMap((s) => registries[s] ?? []);

  it("give each kind an id `<service>.<name>` of its own service, unique across the platform", () => {
    for (const service of CREDENTIAL_SERVICES) {
      for (const kind of registries[service] ?? []) {
        expect(kind.service, kind.id).toBe(service);
        expect(kind.id, kind.id).toMatch(new RegExp(`^${service}\\.[a-z][a-z0-9_]*$`));
      }
    }
    const ids = all.map((k) => k.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it("say how every kind ends: an ending event, or in `alsoEndsWhen` / `survives` why none", () => {
    const silent = all.filter(
      (k) => k.endedBy.length === 0 && !k.alsoEndsWhen?.length && !k.survives?.length,
    );
    expect(silent.map((k) => k.id)).toEqual([]);
    for (const kind of all) {
      expect(
        kind.endedBy.filter((e, i) => kind.endedBy.indexOf(e) !== i),
        `${kind.id}: an event named twice`,
      ).toEqual([]);
      for (const event of [...kind.endedBy, ...(kind.survives ?? []).map((s) => s.event)]) {
        expect(Object.keys(ENDING_EVENTS), `${kind.id}: ${event}`).toContain(event);
      }
      // A kind may survive an event for some of its holders (the session that changed the password) and
      // end for the others; a survival without its reason says nothing.
      for (const s of kind.survives ?? [])
        expect(s.why.length, `${kind.id} survives ${s.event}`).toBeGreaterThan(10);
    }
  });

  it("fill in every fact of the rule: power, proof, who is told, the undo", () => {
    for (const kind of all) {
      for (const fact of ["title", "power", "proof", "told", "undo"] as const) {
        expect(kind[fact].trim().length, `${kind.id}.${fact}`).toBeGreaterThan(2);
      }
    }
  });

  for (const service of CREDENTIAL_SERVICES) {
    describe(`${service}: schema/${service}.ts`, () => {
      const kinds = registries[service] ?? [];
      const tables = tablesOf(service);
      const claimed = new Set(kinds.flatMap((k) => k.tables));

      it("has every table that holds a secret, a hash, a token or a grant claimed by a kind (or listed as none, with why)", () => {
        const unclaimed = credentialTables(service).filter(
          (t) => !claimed.has(t) && !(t in NOT_CREDENTIALS[service]),
        );
        expect(unclaimed, `claim them in src/${service}/credentials.ts (a kind's tables)`).toEqual([]);
      });

      it("has every table a kind claims, and every table listed as none is one the rules find", () => {
        for (const kind of kinds) {
          for (const table of kind.tables)
            expect([...tables.keys()], `${kind.id}: ${table}`).toContain(table);
        }
        const found = credentialTables(service);
        for (const table of Object.keys(NOT_CREDENTIALS[service])) {
          expect(found, `${table} is listed as holding no credential`).toContain(table);
          expect(claimed.has(table), `${table} is listed as none but a kind claims it`).toBe(false);
        }
      });
    });
  }
});

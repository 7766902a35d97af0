/**
 * The credential matrix (issue 31): for every (credential kind, ending event) pair that a service's registry
 * names (`src/<service>/credentials.ts`), the row of `test/e2e/credential-matrix/<service>.ts` makes the
 * credential, shows it works, performs the event through the public API (through the gateway, on the real
 * Workers), and shows the credential no longer works. A pair without a row, or a row without a pair, fails.
 *
 * Each row makes its own accounts, organizations, sites and keys (never shared state), so the rows run
 * concurrently, each from a client address of its own (`withOwnIp`): most of a row's time is spent waiting
 * on the Workers and the outbox, not on the CPU. A row marked `alone` runs by itself after the others.
 */
import { describe, expect, it } from "vitest";
import { type CredentialKind, credentialPairs, ENDING_EVENTS, pairKey } from "../../src/lib/credentials";
import { withOwnIp } from "../support/client-ip";
import { CREDENTIAL_SERVICES, registries, registryList } from "../support/credential-registries";
import type { MatrixRow, MatrixRows } from "./credential-matrix/row";

/** Each service's rows, by service (a service's file joins the moment it exists, as its registry does). */
const rowFiles = import.meta.glob<MatrixRows>("./credential-matrix/{identity,content,sites}.ts", {
  eager: true,
  import: "rows",
});
const rowsByService: Record<string, MatrixRows> = Object.fromEntries(
  Object.entries(rowFiles).map(([file, rows]) => [/\/(\w+)\.ts$/.exec(file)![1], rows]),
);
const kinds: CredentialKind[] = registryList.flat();

/** Runs one row: before the event the use answers `works` (200), after it `ended`. */
async function runRow(row: MatrixRow<never>) {
  const made = await row.arrange();
  expect(await row.use(made), "the credential works before the event").toBe(row.works ?? 200);
  await row.end(made);
  expect(await row.use(made), "the credential no longer works after the event").toBe(row.ended);
}

const pairs = kinds.flatMap((kind) =>
  kind.endedBy.map((event) => ({ kind, event, key: pairKey(kind, event) })),
);
const rowOf = (pair: (typeof pairs)[number]) => rowsByService[pair.kind.service]?.[pair.key];

/** `identity.passkey × password_reset: after the account's password is reset (…), a passkey no longer works`. */
function testName({ kind, event, key }: (typeof pairs)[number]): string {
  const title = /^[A-Z][a-z]/.test(kind.title)
    ? kind.title.charAt(0).toLowerCase() + kind.title.slice(1)
    : kind.title;
  return `${key}: after ${ENDING_EVENTS[event]}, ${title} no longer works`;
}

function pairTest(pair: (typeof pairs)[number]) {
  it(
    testName(pair),
    async () => {
      const row = rowOf(pair);
      if (!row)
        throw new Error(`no row for "${pair.key}" in test/e2e/credential-matrix/${pair.kind.service}.ts`);
      // Each row calls from an address of its own (per-IP limits), also when it runs beside others.
      await withOwnIp(() => runRow(row));
      // A row is a journey (an agent's row connects one through registration, consent and PKCE: 9-20 s alone)
      // and runs beside four others on a loaded machine: the project's 30 s would cut the slow ones short.
    },
    ROW_TIMEOUT_MS,
  );
}

/** The longest a row may take (a backstop for a hung row, not a speed target: those live in bench/). */
const ROW_TIMEOUT_MS = 120_000;

describe.concurrent("the credential matrix: each credential ends when what granted it ends", () => {
  for (const pair of pairs.filter((p) => !rowOf(p)?.alone)) pairTest(pair);
});

describe("the credential matrix: the rows that run by themselves", () => {
  for (const pair of pairs.filter((p) => rowOf(p)?.alone)) pairTest(pair);
});

describe("the credential matrix is complete", () => {
  it("has a row for every pair a registry names, and no row without its pair in its service's registry", () => {
    const keys = new Set(credentialPairs(registryList));
    const rowKeys = Object.entries(rowsByService).flatMap(([service, rows]) =>
      Object.keys(rows).map((key) => ({ service, key })),
    );
    const withRow = new Set(rowKeys.map((r) => r.key));
    expect(
      pairs.filter((pair) => !withRow.has(pair.key)).map((pair) => pair.key),
      "pairs without a row",
    ).toEqual([]);
    expect(
      rowKeys.filter((r) => !keys.has(r.key) || !r.key.startsWith(`${r.service}.`)).map((r) => r.key),
      "rows without a pair of their service's registry",
    ).toEqual([]);
  });

  it("has a row file for every service with a registry, and a registry for every row file", () => {
    const withRegistry = CREDENTIAL_SERVICES.filter((s) => registries[s]);
    expect(Object.keys(rowsByService).sort()).toEqual([...withRegistry].sort());
  });
});

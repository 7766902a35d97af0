/**
 * docs/decisions/credentials.md is generated from the credential registries by `npm run credentials`
 * (scripts/credentials.mjs), never written by hand. This renders it again and fails when the committed file
 * differs (a registry changed without `npm run credentials`).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { docPath, registryFiles, renderDoc } from "../../scripts/credentials.mjs";
import { renderCredentialsDoc } from "../../src/lib/credentials";
import { CREDENTIAL_SERVICES, registries, registryList } from "../support/credential-registries";

describe("docs/decisions/credentials.md", () => {
  it("is what `npm run credentials` renders from the registries (run `npm run credentials` when this fails)", async () => {
    const rendered = await renderDoc();
    expect(
      readFileSync(docPath, "utf8") === rendered,
      "docs/decisions/credentials.md is stale: run `npm run credentials` and commit it",
    ).toBe(true);
  }, 60_000);

  it("is rendered from every registry the tests read, and from nothing else", () => {
    expect(registryFiles()).toEqual(
      CREDENTIAL_SERVICES.filter((s) => registries[s]).map((s) => `src/${s}/credentials.ts`),
    );
    expect(readFileSync(docPath, "utf8")).toBe(renderCredentialsDoc(registryList));
  });
});

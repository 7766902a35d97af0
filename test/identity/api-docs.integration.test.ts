import { describe, it } from "vitest";
import { expectOfflineReference, expectOnlyTheScriptServed } from "../support/api-docs-checks";

describe("GET /docs", () => {
  it("loads the reference from this Worker only (same-origin script, strict CSP, JavaScript asset)", async () => {
    await expectOfflineReference("/docs", "/openapi.json");
  });

  it("serves no other file of the reference package", async () => {
    await expectOnlyTheScriptServed();
  });
});

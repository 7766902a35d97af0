/**
 * The typed client's types (packages/client/src/types/<service>.d.ts, the package `@site-platform/client`
 * the cross-worker journey imports) are what the
 * running workers' OpenAPI documents generate today: a route or schema changed without `npm run client`
 * fails here.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_SERVICES, fetchDocuments, generate, generatedPath } from "../../scripts/client-gen.mjs";
import { root } from "../../scripts/workers.mjs";
import { platform } from "../support/browser";

describe("the generated API client", () => {
  it("matches the OpenAPI documents the workers serve", async () => {
    const generated = await generate(await fetchDocuments(platform().urls));
    for (const service of CLIENT_SERVICES) {
      const file = generatedPath(service);
      const committed = readFileSync(file, "utf8");
      const current = generated[service];
      if (committed !== current) {
        expect.fail(
          `${path.relative(root, file)} is not what ${service}'s /openapi.json generates: run npm run client`,
        );
      }
    }
  });
});

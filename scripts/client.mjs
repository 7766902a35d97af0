// `npm run client`: regenerates the typed client's types (packages/client/src/types/<service>.d.ts, in the
// package `@site-platform/client`) from the OpenAPI documents the workers serve. Starts the platform on a throwaway store and its own ports (8787 +
// CLIENT_PORT_OFFSET, default 2000, so a running `npm start` is left alone), fetches each service's
// `/openapi.json`, writes the files and stops. A test in the browser project fails when they are stale.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CLIENT_SERVICES, fetchDocuments, generate, generatedPath } from "./client-gen.mjs";
import { startPlatform } from "./platform.mjs";
import { root } from "./workers.mjs";

const persist = mkdtempSync(path.join(tmpdir(), "platform-client-"));
const portOffset = Number(process.env.CLIENT_PORT_OFFSET ?? 2000);
const { mf, urls } = await startPlatform({
  persist,
  portOffset,
  distDir: path.join(root, ".wrangler/client-build"),
});
try {
  const files = await generate(await fetchDocuments(urls));
  for (const service of CLIENT_SERVICES) {
    const file = generatedPath(service);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, files[service]);
    console.log(`wrote ${path.relative(root, file)}`);
  }
} finally {
  await mf.dispose();
  rmSync(persist, { recursive: true, force: true });
}

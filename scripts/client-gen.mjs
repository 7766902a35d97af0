// The typed API client's types, generated from the three services' OpenAPI documents (served by each
// worker at `GET /openapi.json`, built by @hono/zod-openapi from the routes' zod schemas) with
// openapi-typescript. Shared by `npm run client` (scripts/client.mjs), which writes them, and the browser
// project's test that holds the committed files to what the workers serve.
import path from "node:path";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import { root } from "./workers.mjs";

export const CLIENT_SERVICES = /** @type {const} */ (["identity", "content", "sites"]);

/** Where the generated types of `service` are committed. */
export function generatedPath(service) {
  return path.join(root, "packages/client/src/types", `${service}.d.ts`);
}

/** The OpenAPI document each service serves on its own address (`urls[service]`). */
export async function fetchDocuments(urls, fetcher = fetch) {
  const documents = {};
  for (const service of CLIENT_SERVICES) {
    const res = await fetcher(`${urls[service]}/openapi.json`);
    if (res.status !== 200) throw new Error(`GET ${urls[service]}/openapi.json -> ${res.status}`);
    documents[service] = await res.json();
  }
  return documents;
}

/** The `.d.ts` text of each service's document: `paths`, `components` and `operations` types. */
export async function generate(documents) {
  const out = {};
  for (const service of CLIENT_SERVICES) {
    const document = documents[service];
    if (!document) throw new Error(`no OpenAPI document for ${service}`);
    // Same input, same output: no timestamps, keys in the document's order (the routes' order).
    // `emptyObjectsUnknown`: `{"type":"object"}` without properties (content's Editor.js `blocks_json`)
    // means any object in JSON Schema, not `Record<string, never>`.
    const ast = await openapiTS(document, { silent: true, emptyObjectsUnknown: true });
    out[service] =
      `${COMMENT_HEADER}// Source: ${service}'s GET /openapi.json (${document.info.title} ${document.info.version}). Regenerate with \`npm run client\`.\n\n${astToString(ast)}`;
  }
  return out;
}

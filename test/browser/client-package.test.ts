/**
 * `@site-platform/client` as a consumer gets it: `npm pack` in packages/client builds and packs it; a
 * fixture consumer in a temporary folder installs the tarball offline (its one dependency, openapi-fetch,
 * packed from this repository's node_modules beside it: no registry, an empty npm cache), type-checks a
 * small program with tsc (Node's ESM resolution, strict; a wrong path or body is a type error), then runs
 * it against the running platform with a staff session, a `ck_` key and a `pk_` key.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../scripts/seed.mjs";
import { root } from "../../scripts/workers.mjs";
import { platform } from "../support/browser";
import { compileConsumer, runIn } from "../support/browser-consumer";

const dir = mkdtempSync(path.join(tmpdir(), "client-package-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The consumer's program: five lines of use, as the README shows, and more calls. */
const PROGRAM = `import { contentClient, identityClient, sitesClient } from "@site-platform/client";

const env = (name: string): string => {
  const value = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env[name];
  if (!value) throw new Error(name + " is not set");
  return value;
};
const baseUrl = env("PLATFORM_URL");
const origin = "http://localhost:5173";

const content = contentClient({ baseUrl, auth: { secretKey: env("SECRET_KEY") } });
const created = await content.POST("/v1/posts", {
  body: { title: "From the package", status: "published", blocks_json: { blocks: [] } },
});
if (!created.data) throw new Error("create: " + JSON.stringify(created.error));

const reader = contentClient({ baseUrl, auth: { publicKey: env("PUBLIC_KEY") }, headers: { origin } });
const listed = await reader.GET("/v1/posts", { params: { query: { limit: 50 } } });
if (!listed.data) throw new Error("list: " + JSON.stringify(listed.error));

const staff = { baseUrl, auth: { bearer: env("ACCESS_TOKEN") } };
const site = await sitesClient(staff).GET("/api/v1/sites/{id}", { params: { path: { id: env("SITE_ID") } } });
const orgs = await identityClient(staff).GET("/api/v1/auth/orgs");
if (!site.data || !orgs.data) throw new Error("staff: " + JSON.stringify(site.error ?? orgs.error));

// The types are the API's: an unknown path and a wrong body do not compile.
// @ts-expect-error no such operation
void content.GET("/v1/no-such-path");
// @ts-expect-error a post's title is a string
void content.POST("/v1/posts", { body: { title: 42 } });
// @ts-expect-error limit is an integer, not text
void reader.GET("/v1/posts", { params: { query: { limit: "50" } } });

console.log(JSON.stringify({
  created: created.data.id,
  listed: listed.data.items.map((p) => p.id),
  site: site.data.id,
}));
`;

describe("the client package, packed and installed by a consumer", () => {
  it("packs, installs offline, type-checks and calls the platform", { timeout: 180_000 }, async () => {
    const packs = path.join(dir, "packs");
    mkdirSync(packs);
    await runIn("npm", ["pack", "--pack-destination", packs], path.join(root, "packages/client"));
    await runIn(
      "npm",
      [
        "pack",
        "--pack-destination",
        packs,
        "--",
        ...["openapi-fetch", "openapi-typescript-helpers"].map((p) => path.join(root, "node_modules", p)),
      ],
      dir,
    );
    const tarballs = readdirSync(packs).filter((f) => f.endsWith(".tgz"));
    expect(tarballs.some((f) => f.startsWith("site-platform-client-"))).toBe(true);

    const consumer = path.join(dir, "consumer");
    mkdirSync(consumer);
    writeFileSync(
      path.join(consumer, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    const install = ["install", "--offline", "--no-audit", "--no-fund", "--cache", path.join(dir, "cache")];
    await runIn("npm", [...install, ...tarballs.map((f) => path.join(packs, f))], consumer);

    await compileConsumer(consumer, PROGRAM);

    const demo = await seedDemo(platform().urls.gateway, { stateFile: path.join(dir, "demo-owner.json") });
    const out = await runIn(process.execPath, ["out/main.js"], consumer, {
      PLATFORM_URL: platform().urls.gateway,
      SECRET_KEY: demo.keys.secret,
      PUBLIC_KEY: demo.keys.public,
      ACCESS_TOKEN: demo.session.access_token,
      SITE_ID: demo.site.id,
    });
    const result = JSON.parse(out.trim().split("\n").at(-1)!) as {
      created: string;
      listed: string[];
      site: string;
    };
    expect(result.site).toBe(demo.site.id);
    expect(result.listed).toContain(result.created);
  });
});

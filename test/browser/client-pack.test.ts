/**
 * `@site-platform/client` from a fresh clone (issue 35): the package's committed files alone, copied away
 * from the repository (no root install above them), with only what its package.json declares installed
 * (each declared package and its own dependencies, copied from this repository's node_modules: no
 * registry), `npm pack` builds and packs it; the tarball holds the built module and its types. A consumer
 * then installs that tarball offline, compiles a program with tsc that uploads an image with
 * `uploadMedia(file)` and calls the dashboard API through `staffSession` with an expired access token,
 * and runs it against the platform: the upload is the API's asset, and three concurrent calls share one
 * refresh and succeed.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../scripts/seed.mjs";
import { root } from "../../scripts/workers.mjs";
import { platform } from "../support/browser";
import { compileConsumer, runIn } from "../support/browser-consumer";
import { expiredCopy } from "../support/browser-tokens";

const dir = mkdtempSync(path.join(tmpdir(), "client-pack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `name` and its own dependencies (what npm installs for a dependency), copied from this repository. */
function copyPackage(name: string, into: string, seen: Set<string>) {
  if (seen.has(name)) return;
  seen.add(name);
  const source = path.join(root, "node_modules", name);
  if (!existsSync(source)) throw new Error(`${name} is needed but not in the repository's node_modules`);
  cpSync(source, path.join(into, "node_modules", name), { recursive: true, dereference: true });
  const own = JSON.parse(readFileSync(path.join(source, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  for (const dep of Object.keys(own.dependencies ?? {})) copyPackage(dep, into, seen);
}

/** What `npm install` gives the package at `dir`: its declared dependencies and devDependencies, no more. */
function installDeclared(dir: string) {
  const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const seen = new Set<string>();
  for (const name of [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
  ])
    copyPackage(name, dir, seen);
}

/** A 1×1 PNG. */
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** The consumer's program: an upload, and dashboard calls that outlive the access token. */
const PROGRAM = `import { contentClient, sitesClient, staffSession, uploadMedia } from "@site-platform/client";

const env = (name: string): string => {
  const value = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env[name];
  if (!value) throw new Error(name + " is not set");
  return value;
};
const baseUrl = env("PLATFORM_URL");

const content = contentClient({ baseUrl, auth: { secretKey: env("SECRET_KEY") } });
const png = Uint8Array.from(atob(env("PNG_BASE64")), (c) => c.charCodeAt(0));
const uploaded = await uploadMedia(content, new Blob([png], { type: "image/png" }));
if (!uploaded.data) throw new Error("upload: " + JSON.stringify(uploaded.error));
const asset: { id: string; status: string; content_type: string } = uploaded.data;

// The types are the API's: a file is a Blob, and the form has no such field.
// @ts-expect-error a file is a Blob, not text
void uploadMedia(content, "not a file");
// @ts-expect-error the upload form has no field "colour"
void uploadMedia(content, new Blob([png]), { colour: "red" });

const refreshed: string[] = [];
const session = staffSession({
  baseUrl,
  session: { access_token: env("EXPIRED_ACCESS_TOKEN"), refresh_token: env("REFRESH_TOKEN") },
  onRefresh: (s) => {
    refreshed.push(s.refresh_token);
  },
});
const sites = sitesClient({ baseUrl, fetch: session.fetch });
const reads = await Promise.all(
  [1, 2, 3].map(() => sites.GET("/api/v1/sites/{id}", { params: { path: { id: env("SITE_ID") } } })),
);

console.log(JSON.stringify({
  asset,
  statuses: reads.map((r) => r.response.status),
  sites: reads.map((r) => r.data?.id ?? null),
  refreshes: refreshed.length,
  rotated: session.tokens().refresh_token !== env("REFRESH_TOKEN"),
}));
`;

describe("the client package from a fresh clone", () => {
  it("packs with only its declared dependencies; a consumer compiles uploadMedia and staffSession and runs them", {
    timeout: 240_000,
  }, async () => {
    // The committed files of packages/client, nothing built, away from the repository's node_modules.
    const copy = path.join(dir, "client");
    const tracked = (await runIn("git", ["ls-files", "packages/client"], root)).split("\n").filter(Boolean);
    for (const file of tracked) {
      const target = path.join(copy, path.relative("packages/client", file));
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(path.join(root, file), target);
    }
    expect(existsSync(path.join(copy, "dist"))).toBe(false);
    installDeclared(copy);

    const packs = path.join(dir, "packs");
    mkdirSync(packs);
    const offline = ["--offline", "--cache", path.join(dir, "cache")];
    await runIn("npm", ["pack", "--pack-destination", packs, ...offline], copy);
    const tarball = readdirSync(packs).find((f) => f.startsWith("site-platform-client-"));
    expect(tarball).toBeDefined();
    const entries = (await runIn("tar", ["-tzf", path.join(packs, tarball!)], dir))
      .split("\n")
      .filter(Boolean)
      .sort();
    expect(entries).toEqual(
      [
        "package/README.md",
        "package/dist/index.d.ts",
        "package/dist/index.js",
        "package/dist/types/content.d.ts",
        "package/dist/types/identity.d.ts",
        "package/dist/types/sites.d.ts",
        "package/package.json",
      ].sort(),
    );
    const types = readFileSync(path.join(copy, "dist/index.d.ts"), "utf8");
    expect(types).toMatch(/export declare function uploadMedia\(/);
    expect(types).toMatch(/export declare function staffSession\(/);

    // A consumer installs the tarball (and openapi-fetch, packed from this repository) offline.
    await runIn(
      "npm",
      [
        "pack",
        "--pack-destination",
        packs,
        ...offline,
        "--",
        ...["openapi-fetch", "openapi-typescript-helpers"].map((p) => path.join(root, "node_modules", p)),
      ],
      dir,
    );
    const consumer = path.join(dir, "consumer");
    mkdirSync(consumer);
    writeFileSync(
      path.join(consumer, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    const tarballs = readdirSync(packs).filter((f) => f.endsWith(".tgz"));
    await runIn(
      "npm",
      ["install", "--no-audit", "--no-fund", ...offline, ...tarballs.map((f) => path.join(packs, f))],
      consumer,
    );
    await compileConsumer(consumer, PROGRAM);

    const demo = await seedDemo(platform().urls.gateway, { stateFile: path.join(dir, "demo-owner.json") });
    const out = await runIn(process.execPath, ["out/main.js"], consumer, {
      PLATFORM_URL: platform().urls.gateway,
      SECRET_KEY: demo.keys.secret,
      EXPIRED_ACCESS_TOKEN: await expiredCopy(demo.session.access_token),
      REFRESH_TOKEN: demo.session.refresh_token,
      SITE_ID: demo.site.id,
      PNG_BASE64,
    });
    const result = JSON.parse(out.trim().split("\n").at(-1)!) as {
      asset: { id: string; status: string; content_type: string };
      statuses: number[];
      sites: (string | null)[];
      refreshes: number;
      rotated: boolean;
    };
    expect(result.asset).toMatchObject({ status: "processing", content_type: "image/png" });
    expect(result.statuses).toEqual([200, 200, 200]);
    expect(result.sites).toEqual([demo.site.id, demo.site.id, demo.site.id]);
    expect(result.refreshes).toBe(1);
    expect(result.rotated).toBe(true);
  });
});

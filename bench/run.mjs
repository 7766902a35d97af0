// `npm run bench`: starts the platform on a fresh temporary store (ports 9787-9790, so it can run beside
// `npm start`), runs each bench and prints one JSON report (also written to bench/results/).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startPlatform } from "../scripts/platform.mjs";
import { root } from "../scripts/workers.mjs";
import { benchAnalytics } from "./analytics.mjs";
import { benchContent } from "./content.mjs";
import { benchIdentity } from "./identity.mjs";

const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const persist = mkdtempSync(path.join(os.tmpdir(), "platform-bench-"));
const { mf, urls } = await startPlatform({ persist, portOffset: 1000 });
const report = {
  at: new Date().toISOString(),
  machine: `${os.cpus().length} cores, node ${process.version}`,
};
try {
  if (only.length === 0 || only.includes("identity")) report.identity = await benchIdentity(urls.gateway);
  if (only.length === 0 || only.includes("content")) report.content = await benchContent(mf, urls);
  if (only.length === 0 || only.includes("analytics")) report.analytics = await benchAnalytics(mf, urls);
} finally {
  await mf.dispose();
  rmSync(persist, { recursive: true, force: true });
}
const out = JSON.stringify(report, null, 2);
console.log(out);
mkdirSync(path.join(root, "bench/results"), { recursive: true });
writeFileSync(path.join(root, "bench/results", `${report.at.replace(/[:.]/g, "-")}.json`), out);

import type { DeploySettings, ResourceIds, WorkerConfigs } from "./deploy-config.mjs";

export interface WranglerResult {
  code: number;
  stdout: string;
  stderr: string;
}
export type Wrangler = (
  args: string[],
  options?: { capture?: boolean; env?: Record<string, string> },
) => Promise<WranglerResult>;
export declare function writeConfigs(
  dir: string,
  settings: DeploySettings,
  ids: ResourceIds,
  configs?: WorkerConfigs,
): Record<"gateway" | "identity" | "content" | "sites", string>;
export declare function deploy(options?: {
  dryRun?: boolean;
  settingsFile?: string;
  wrangler?: Wrangler;
  env?: Record<string, string | undefined>;
  log?: (line: string) => void;
  outDir?: string;
  api?: (
    url: string,
    init: { method: string; headers: Record<string, string>; body: string },
  ) => Promise<Response>;
  /** --dry-run: where the bundles are kept (default: a temporary folder, removed after). */
  bundleDir?: string;
  /** A Worker's config other than its committed one (tests: content with a group added). */
  configs?: WorkerConfigs;
}): Promise<void>;
export declare function replicatedDatabases(configs?: WorkerConfigs): string[];

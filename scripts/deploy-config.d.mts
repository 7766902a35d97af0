type WorkerName = "gateway" | "identity" | "content" | "sites";
export interface DeploySettings {
  account_id?: string;
  workers?: Partial<
    Record<
      WorkerName,
      {
        vars?: Record<string, string>;
        routes?: { pattern: string; custom_domain?: boolean; zone_name?: string; zone_id?: string }[];
        workers_dev?: boolean;
      }
    >
  >;
}
/** A Worker's config file other than its committed one, by name (tests). */
export type WorkerConfigs = Partial<Record<WorkerName, string>>;
export interface ResourceIds {
  d1: Record<string, string>;
  kv: Record<string, string>;
}
export declare const CONTENT_PUBLIC_PATHS: string[];
export declare function contentRoutes(
  gatewayRoutes: ({ pattern: string; zone_name?: string; zone_id?: string } | string)[],
): ({ pattern: string; zone_name?: string; zone_id?: string } | string)[];
export declare const DEPLOY_ORDER: readonly WorkerName[];
export declare const GENERATED_DIR: string;
export declare const DEFAULT_SETTINGS: string;
export declare const EXAMPLE_SETTINGS: string;
export declare const SECRETS: Record<
  WorkerName,
  { generated: Record<string, () => string>; provided: string[] }
>;
export declare const SHARED_SECRETS: Record<string, { workers: WorkerName[]; make: () => string }>;
export declare function sharedSecretsToUpload(
  existingOf: Partial<Record<WorkerName, string[] | null>>,
): Record<WorkerName, Record<string, string>>;
export declare const REQUIRED_VARS: Record<WorkerName, string[]>;
export declare const MAIL_PROVIDERS: string[];
export declare const SMS_PROVIDERS: string[];
export declare function mailProblems(vars: Record<string, string | undefined>): string[];
export declare const DEV_ONLY_VARS: RegExp;
export declare function readConfig(
  name: WorkerName,
  configs?: WorkerConfigs,
  // biome-ignore lint/suspicious/noExplicitAny: wrangler's raw config is untyped JSON.
): { file: string; raw: Record<string, any> };
export declare function contentGroupDatabases(configs?: WorkerConfigs): string[];
export declare function configProblems(configs?: WorkerConfigs): string[];
export declare function readSettings(file: string): DeploySettings;
export declare function resources(configs?: WorkerConfigs): {
  d1: string[];
  kv: string[];
  queues: string[];
  r2: string[];
};
export declare function serviceTargets(name: WorkerName, configs?: WorkerConfigs): string[];
export declare function settingsProblems(
  settings: DeploySettings,
  options?: { allowExample?: boolean },
): string[];
export declare function productionConfig(
  name: WorkerName,
  options: { settings: DeploySettings; ids: ResourceIds; outDir: string; configs?: WorkerConfigs },
  // biome-ignore lint/suspicious/noExplicitAny: a wrangler.json object.
): Record<string, any>;
export declare function placeholderIds(configs?: WorkerConfigs): ResourceIds;
export declare function secretsToUpload(
  name: WorkerName,
  existing: string[],
  env: Record<string, string | undefined>,
): { secrets: Record<string, string>; missing: string[] };

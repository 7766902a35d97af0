export declare const STACK_GROUPS: string[];
export declare const FLEET_ROUNDS: number;
export declare const FLEET_KINDS: string[];
export declare function fleetScale(quick: boolean): {
  sites: number;
  posts: number;
  sitePosts: number;
  moveWriters: number;
  moveTimeoutS: number;
};
export interface WorkerOptionsLike {
  name: string;
  d1Databases?: Record<string, { id: string }>;
  bindings?: Record<string, unknown>;
  [key: string]: unknown;
}
export declare function withGroups(groups: string[]): <T extends WorkerOptionsLike>(options: T) => T;
export declare function publishedSlugs(from: number, count: number): string[];
export declare function longestRefusal(answers: { at: number; status: number }[]): {
  longest_ms: number;
  runs: number;
};
export declare function fencedWindow(
  polls: { asked: number; answered: number; phase: string | null }[],
): { from: number; until: number } | null;
export interface FleetRow {
  id: string;
  kind?: string;
  base?: string;
  label: string;
  spec: { method: string; paths: string[]; [key: string]: unknown };
}
export declare function roundRows(
  r: number,
  context: {
    keys: Record<"one" | "fleet", { cold: string[]; public: string[]; write: string[] }>;
    scale: { sitePosts: number };
    at: Record<"one" | "fleet", string>;
  },
): FleetRow[];

export declare const FLEET_CHUNK: number;
export declare const SITE_CHUNK: number;
export declare const SIZE_FACTORS: number[];
export declare const FULLEST_WEIGHT: number;
export declare const MAX_POSTS_PER_SITE: number;
export declare function placeSites(groups: string[], counts: Map<string, number>, n: number): string[];
export declare function postCounts(placement: string[], fullest: string, total: number): number[];
export declare function chunkByPosts<T extends { posts: number }>(sites: T[], limit?: number): T[][];
export declare function ulid(ms?: number): string;
export interface D1Like {
  getD1Database(binding: string, worker?: string): Promise<D1Database>;
}
export declare function seedFleet(
  mf: D1Like,
  options: {
    groups: string[];
    measured: { id: string; group: string; templateId: string };
    sites: number;
    posts: number;
    log?: (line: string) => void;
  },
): Promise<{ placed: Record<string, number>; posts: Record<string, number>; seconds: number }>;

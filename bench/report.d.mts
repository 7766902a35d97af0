export declare const FLEET_BOUND: number;
export declare function fleetSlowdown(
  load: { id: string; rps: number; base?: string }[],
  kind: string,
): { one: number; fleet: number; slowdown: number; rounds: number[] } | null;
export declare function moveProblems(move: Record<string, unknown>): string[];

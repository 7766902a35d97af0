export declare function firstSide(index: number, roundNo: number): "before" | "after";
export declare function roundSpec<T extends { paths: string[] }>(spec: T, roundNo: number, rounds: number): T;
export interface AbPair {
  before: number;
  after: number;
  ratio: number;
}
export declare function pairedFigures(
  runs: { round: number; side: "before" | "after"; rps: number }[],
): { pairs: AbPair[]; median: number } | null;
export declare function renderAb(result: Record<string, unknown>, bound?: number): string;
export declare function parseAbArgs(argv: string[]): {
  only: string[] | null;
  local: boolean;
  rev: string | null;
  rounds: number;
  rest: string[];
  portOffset: number;
  quick: boolean;
};

export declare const BENCH_PORT_OFFSET: number;
export declare const MEMORY_STACK_OFFSET: number;
export declare const LOCAL_LIMITERS_STACK_OFFSET: number;
export declare const FLEET_STACK_OFFSET: number;
export declare const AB_STACK_OFFSETS: { before: number; after: number };
export declare function platformPorts(portOffset: number): number[];
export declare function startPorts(portOffset?: number): number[];
export declare function benchPorts(
  portOffset?: number,
): Record<"bench" | "memory" | "local_limiters" | "fleet" | "ab_before" | "ab_after", number[]>;
export declare function assertPortsFree(ports: number[], host?: string): Promise<void>;

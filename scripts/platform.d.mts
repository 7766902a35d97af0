import type { Miniflare } from "miniflare";

type ServiceName = "gateway" | "identity" | "content" | "sites";
export declare const HOST: string;
export declare function startPlatform(options?: {
  persist?: string;
  portOffset?: number;
  extraBindings?: Partial<Record<ServiceName, Record<string, string>>>;
  distDir?: string;
  outboundService?: (request: Request) => Promise<Response> | Response;
  handleStructuredLogs?: (log: { timestamp: number; level: string; message: string }) => void;
}): Promise<{ mf: Miniflare; urls: Record<ServiceName, string>; migrations: Record<string, string[]> }>;
export declare function waitUntilReady(url: string, timeoutMs?: number): Promise<void>;

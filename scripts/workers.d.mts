export declare const root: string;
export declare const services: Record<
  "gateway" | "identity" | "content" | "sites",
  { config: string; entry: string; port: number; database: string | null }
>;
export declare const serviceNames: ("gateway" | "identity" | "content" | "sites")[];
export declare function buildWorker(name: keyof typeof services, outDir: string): string;
export declare function workerOptions(
  name: keyof typeof services,
  options: {
    scriptPath: string;
    bindings?: Record<string, string>;
    rename?: Record<string, string>;
    config?: string;
    withRoutes?: boolean;
  },
): { name: string; scriptPath: string; modules: true; [key: string]: unknown };
export declare const LOCAL_ROUTES: Record<keyof typeof services, string[]>;
export declare function routePatterns(name: keyof typeof services): string[];

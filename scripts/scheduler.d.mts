type Crons = Record<string, string[]>;
export interface FireResult {
  ok: boolean;
  status: number | undefined;
  detail: string;
}
export type Fire = (worker: string, cron: string, scheduledTime: number) => Promise<FireResult>;
interface ParsedField {
  values: Set<number>;
  any: boolean;
}
export interface ParsedCron {
  minute: ParsedField;
  hour: ParsedField;
  dom: ParsedField;
  month: ParsedField;
  dow: ParsedField;
}
export declare function parseCron(expression: string): ParsedCron;
export declare function nextFire(expression: string | ParsedCron, after: number | Date): number;
export declare function readCrons(): Crons;
export declare function devTriggerFirer(urls: Record<string, string>): Fire;
export declare function registryFirer(registryPath: string): Promise<Fire & { close(): Promise<void> }>;
export declare function fireLine(
  worker: string,
  cron: string,
  scheduledTime: number,
  result: FireResult,
  ms: number,
): string;
export declare function fireOnce(
  fire: Fire,
  worker: string,
  cron: string,
  scheduledTime?: number,
): Promise<{ result: FireResult; line: string }>;
export declare function startScheduler(options: {
  crons: Crons;
  fire: Fire;
  log?: (line: string) => void;
  now?: () => number;
}): { stop(): void };
export declare function describeCrons(crons: Crons): string;
export declare function runSchedules(options: { fire: Fire; log?: (line: string) => void; crons?: Crons }): {
  crons: Crons;
  stop(): void;
};

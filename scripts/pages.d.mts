export declare const bundlePath: string;
export declare function buildPages(): Promise<Record<string, string>>;
export declare function bundleText(scripts: Record<string, string>): string;
export declare function scriptsInStrings(): string[];

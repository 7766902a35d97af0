export declare const docPath: string;
export declare function registryFiles(): string[];
export declare function renderDoc(): Promise<string>;

export declare function failedTests(reportPath: string, root: string): string[];

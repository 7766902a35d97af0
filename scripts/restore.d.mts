export declare function databaseOf(sql: string): string;

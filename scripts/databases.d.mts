type ServiceName = "gateway" | "identity" | "content" | "sites";
export interface D1Table {
  binding?: string;
  database_name?: string;
  database_id?: string;
  migrations_dir?: string;
}
export interface LocalDatabase {
  service: ServiceName;
  binding: string;
  /** The database_name (content-g000, content-directory, identity, sites). */
  name: string;
  /** The local database_id (Miniflare's SQLite file). */
  id: string;
  /** Its folder under migrations/. */
  migrations: string;
}
export declare function d1Tables(text: string): D1Table[];
export declare function tomlVar(text: string, name: string): string | undefined;
export declare function serviceDatabases(service: ServiceName, configFile?: string): LocalDatabase[];
export declare function allDatabases(): LocalDatabase[];
export declare function groupDatabaseName(group: string): string;
export declare function groupBindingName(group: string): string;
export declare function contentGroupProblems(text: string): string[];

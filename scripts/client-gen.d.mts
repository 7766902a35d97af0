type ClientService = "identity" | "content" | "sites";
export declare const CLIENT_SERVICES: readonly ClientService[];
export declare function generatedPath(service: ClientService): string;
export declare function fetchDocuments(
  urls: Record<ClientService, string>,
  fetcher?: typeof fetch,
): Promise<Record<ClientService, { info: { title: string; version: string } } & Record<string, unknown>>>;
export declare function generate(
  documents: Record<ClientService, unknown>,
): Promise<Record<ClientService, string>>;

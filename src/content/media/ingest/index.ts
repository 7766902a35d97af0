/** Public surface of the image-ingest core (the RPC method and media storage live in the service). */
export {
  classifyImage,
  fetchImageSafely,
  type ImageFetcher,
  type IngestDeps,
  type IngestOutcome,
  safeImageFetcher,
} from "./ingest-image";
export { isPublicAddress } from "./ip-ranges";
export { dohResolver, ResolveError, type Resolver } from "./resolver";
export { checkPublicDestination } from "./safe-fetch";

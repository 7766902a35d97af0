/** Public surface of the image-ingest core (the RPC method and media storage live in the service). */
export { classifyImage, type ImageFetcher } from "./ingest-image";

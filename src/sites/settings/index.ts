export type { ExternalImageRef } from "./image-urls";
export { collectExternalImageUrls, replaceImageUrl } from "./image-urls";
export { validateSettings } from "./validate-settings";
export type { SettingsValidation, SettingsViolation } from "./violation";

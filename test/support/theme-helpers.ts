/** Helpers for theme tests: themes stored directly (an organization's or the platform's), operator headers. */
import { newId } from "../../src/lib/ids";
import { insertTheme, type ThemeRow } from "../../src/sites/themes/theme-store";
import { type EdgeHeaders, sitesEnv } from "./sites-helpers";

/** A theme as the API answers it (ThemeSchema), or a problem answer in its place. */
export interface ThemeBody {
  /** Problem answers: */
  code?: string;
  detail?: string;
  details?: Record<string, unknown>;
  id: string;
  scope: string;
  org_id: string | null;
  slug: string;
  name: string;
  version: string;
  description: string | null;
  preview_url: string | null;
  package: Record<string, unknown>;
}

/** A look that passes the validator and the contrast gate. */
export const LOOK = {
  customization: {
    theme_base: "light",
    colors: { bg: "#ffffff", text: "#111111", primary: "#0b57d0", accent: "#b3261e" },
    typography: { font_primary: "Inter, sans-serif", line_height: 1.5 },
    layout: { radius: 8 },
  },
  header: { model: "split-nav" },
  footer: { model: "columns" },
};

export const operatorAdmin: EdgeHeaders = { "x-platform-operator": "operator_admin", "x-user-id": newId() };
export const operatorRead: EdgeHeaders = { "x-platform-operator": "operator_read", "x-user-id": newId() };

export function themeSlug(prefix = "theme"): string {
  return `${prefix}-${newId().toLowerCase().slice(-10)}`;
}

/** Stores a theme row as is (no rules applied); returns its id. */
export async function storeTheme(
  fields: Partial<ThemeRow> & Pick<ThemeRow, "scope">,
  pkg: Record<string, unknown> = LOOK,
): Promise<string> {
  const at = new Date().toISOString();
  const row: ThemeRow = {
    id: newId(),
    org_id: null,
    slug: themeSlug(),
    name: "Stored theme",
    version: "1.0.0",
    description: null,
    preview_url: null,
    package_json: JSON.stringify(pkg),
    created_at: at,
    updated_at: at,
    ...fields,
  };
  await insertTheme(sitesEnv.DB, row);
  return row.id;
}

import { isPerfil, isSetor, LEGAL_DATA_KEYS, LEGAL_DATA_MAX, PERFIS, SETORES } from "../../legal/cases";
import { isJurisdiction, JURISDICTIONS } from "../../legal/catalog";
import { isPlainObject, isPresent, type JsonObject } from "./json";
import { refuse } from "./violation";

/**
 * `settings.legal`: the case legal pages are generated for (`perfil`, `setor`, `jurisdiction`, each from
 * its list) and the owner data that fills their placeholders (strings of at most LEGAL_DATA_MAX
 * characters). Other keys pass through.
 */
export function checkLegal(settings: JsonObject): void {
  const legal = settings.legal;
  if (!isPresent(legal)) return;
  if (!isPlainObject(legal)) refuse("SETTINGS_INVALID_LEGAL", "settings.legal", "must be an object");
  if (isPresent(legal.perfil) && !isPerfil(legal.perfil)) {
    refuse("SETTINGS_INVALID_LEGAL", "settings.legal.perfil", `must be one of ${PERFIS.join(", ")}`);
  }
  if (isPresent(legal.setor) && !isSetor(legal.setor)) {
    refuse("SETTINGS_INVALID_LEGAL", "settings.legal.setor", `must be one of ${SETORES.join(", ")}`);
  }
  if (isPresent(legal.jurisdiction) && !isJurisdiction(legal.jurisdiction)) {
    refuse(
      "SETTINGS_INVALID_LEGAL",
      "settings.legal.jurisdiction",
      `must be one of ${JURISDICTIONS.join(", ")}`,
    );
  }
  for (const key of LEGAL_DATA_KEYS) {
    const value = legal[key];
    if (isPresent(value) && (typeof value !== "string" || value.length > LEGAL_DATA_MAX)) {
      refuse(
        "SETTINGS_INVALID_LEGAL",
        `settings.legal.${key}`,
        `must be a string of at most ${LEGAL_DATA_MAX} characters`,
      );
    }
  }
}

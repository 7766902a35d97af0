/** Pieces the English documents share: who answers for the site, and how to reach them. */
import type { LegalCase } from "../../cases";

/** The controller (GDPR) or business (CCPA) as the documents name it. */
export function controllerEn(c: LegalCase): string {
  return c.perfil === "empresa"
    ? "[LEGAL NAME], registered under number [COMPANY REGISTRATION NUMBER], with its registered office at [POSTAL ADDRESS]"
    : "[RESPONSIBLE PERSON], the individual responsible for this site, who can be reached by post at [POSTAL ADDRESS]";
}

/** Short name of who answers for the site. */
export function ownerEn(c: LegalCase): string {
  return c.perfil === "empresa" ? "[LEGAL NAME]" : "[RESPONSIBLE PERSON]";
}

/**
 * English translations of Brazilian documents, for a site in Brazil whose language is English: the
 * cookie policy (LGPD; ANPD's guide on cookies, 2022). The other Brazilian documents exist in Portuguese
 * only (their legal references are Brazilian statutes).
 */
import type { LegalText } from "../sections";

export const brazilCookiePolicyEn: LegalText = () => [
  {
    titulo: "1. What cookies are",
    paragrafos: [
      "Cookies are small files that [NOME DO SITE] ([ENDEREÇO DO SITE]) stores in your browser to remember information about your visit. Similar technologies (local storage, pixels) follow the same rules as this policy.",
    ],
  },
  {
    titulo: "2. The cookies we use",
    itens: [
      "<b>Strictly necessary</b>: make the site work (security, privacy preferences, basket or session). They do not depend on consent and cannot be switched off by the site;",
      "<b>Performance and statistics</b>: measure the audience in aggregate, so we understand which pages are visited most and can improve the site;",
      "<b>Functionality</b>: remember choices such as language and theme;",
      "<b>Advertising</b>: where present, show more relevant ads and measure their effect; used only with your consent.",
    ],
  },
  {
    titulo: "3. Your consent",
    paragrafos: [
      "Non-essential cookies are set only after you accept them in the cookie notice, as the Brazilian General Data Protection Law (LGPD, Law No. 13,709/2018) and the guidance of the National Data Protection Authority (ANPD) require. You can change your choice at any time through the same notice or by deleting cookies in your browser; refusing non-essential cookies does not stop you from using the site.",
    ],
  },
  {
    titulo: "4. Managing cookies in your browser",
    paragrafos: [
      "Every browser lets you block or delete cookies in its privacy settings. Blocking strictly necessary cookies may stop some features of the site from working.",
    ],
  },
  {
    titulo: "5. More information",
    paragrafos: [
      "Personal data processed through cookies is handled as our Privacy Policy describes. Questions: [E-MAIL DE CONTATO].",
    ],
  },
];

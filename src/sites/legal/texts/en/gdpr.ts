/**
 * Privacy notice under the GDPR (Regulation (EU) 2016/679, arts. 13 and 14) and, for `uk`, the UK GDPR
 * with the Data Protection Act 2018; the cookie rules of the ePrivacy Directive (2002/58/EC, art. 5(3))
 * or the UK's PECR (2003, reg. 6).
 */
import type { LegalText } from "../sections";
import { controllerEn, ownerEn } from "./common";

export type GdprRegime = "eu" | "uk";

const LAW: Record<GdprRegime, string> = {
  eu: 'the General Data Protection Regulation (Regulation (EU) 2016/679, "GDPR")',
  uk: 'the UK General Data Protection Regulation ("UK GDPR") and the Data Protection Act 2018',
};

const AUTHORITY: Record<GdprRegime, string> = {
  eu: "the data protection supervisory authority of the EU or EEA member state where you live, work or where you think an infringement took place",
  uk: "the Information Commissioner's Office (ICO, ico.org.uk)",
};

const TRANSFERS: Record<GdprRegime, string> = {
  eu: "When data leaves the European Economic Area, we rely on an adequacy decision of the European Commission or on the Commission's standard contractual clauses (GDPR arts. 45 and 46).",
  uk: "When data leaves the United Kingdom, we rely on UK adequacy regulations or on the ICO's International Data Transfer Agreement or Addendum (UK GDPR arts. 45 and 46).",
};

export function privacyNotice(regime: GdprRegime): LegalText {
  return (c) => [
    {
      titulo: "1. Who we are",
      paragrafos: [
        `This privacy notice explains how ${controllerEn(c)} ("we", "us"), the controller of the personal data processed on [SITE NAME] ([SITE ADDRESS]), collects, uses, shares and protects your personal data under ${LAW[regime]}.`,
        `Contact for any privacy question: [CONTACT E-MAIL]. ${c.perfil === "empresa" ? "Our data protection officer, [DATA PROTECTION OFFICER], can be reached at [DPO E-MAIL]." : ""}`.trim(),
        ...(regime === "eu"
          ? [
              "If we are not established in the EU, our representative in the EU (GDPR art. 27) is [REPRESENTATIVE].",
            ]
          : [
              "If we are not established in the UK, our representative in the UK (UK GDPR art. 27) is [REPRESENTATIVE].",
            ]),
      ],
    },
    {
      titulo: "2. The data we collect",
      itens: [
        "data you give us: your name, e-mail address, telephone number and the content of the messages you send through our forms;",
        "usage data: IP address, date and time of access, pages visited, browser and device, collected automatically and through cookies (see our Cookie Policy).",
      ],
    },
    {
      titulo: "3. Why we use your data and our lawful basis",
      itens: [
        "to answer your enquiries and requests (steps at your request before a contract, or our legitimate interests, art. 6(1)(b) and (f));",
        "to provide what you ordered or contracted from us (performance of a contract, art. 6(1)(b));",
        "to send you news and offers, only with your consent, which you may withdraw at any time (art. 6(1)(a));",
        "to keep the site secure and to meet our legal obligations (art. 6(1)(c) and (f));",
        "to measure the audience and improve the site (consent where the law requires it for non-essential cookies, otherwise our legitimate interests, art. 6(1)(a) or (f)).",
      ],
      fecho: [
        "Where we rely on legitimate interests, we have weighed them against your rights; you may object at any time (art. 21).",
      ],
    },
    {
      titulo: "4. Who we share your data with",
      paragrafos: [
        `We share personal data only with processors acting on our instructions under a contract (art. 28): hosting, e-mail delivery and analytics providers; and with authorities when the law requires it. We do not sell your personal data. ${TRANSFERS[regime]}`,
      ],
    },
    {
      titulo: "5. How long we keep your data",
      paragrafos: [
        "We keep personal data only as long as needed for the purposes above: enquiries for up to [RETENTION PERIOD], contract and accounting records for the period the law requires, and marketing data until you withdraw your consent.",
      ],
    },
    {
      titulo: "6. Your rights",
      paragrafos: ["You have the right to:"],
      itens: [
        "access your personal data and receive a copy (art. 15);",
        "have inaccurate data rectified (art. 16) and, in the cases the law provides, erased (art. 17);",
        "restrict processing (art. 18) and object to processing based on legitimate interests or for direct marketing (art. 21);",
        "data portability (art. 20);",
        "withdraw your consent at any time, without affecting processing before the withdrawal (art. 7(3));",
        "not be subject to a decision based solely on automated processing that significantly affects you (art. 22).",
      ],
      fecho: [
        `To exercise a right, write to [CONTACT E-MAIL]. We answer within one month (art. 12(3)). You may also lodge a complaint with ${AUTHORITY[regime]}.`,
      ],
    },
    {
      titulo: "7. Security",
      paragrafos: [
        `${ownerEn(c)} applies technical and organisational measures appropriate to the risk (art. 32), such as encrypted connections (HTTPS), access control and backups, and will notify the supervisory authority and you of a personal data breach where the law requires it (arts. 33 and 34).`,
      ],
    },
    {
      titulo: "8. Changes to this notice",
      paragrafos: [
        "We may update this notice; the current version is always published on this page, with the date of its last update.",
      ],
    },
  ];
}

/** Cookie policy (ePrivacy Directive art. 5(3), or PECR reg. 6 for `uk`). */
export function cookiePolicyEn(regime: GdprRegime | "us-ca"): LegalText {
  const rule =
    regime === "eu"
      ? "As the ePrivacy Directive requires, non-essential cookies are set only after you accept them."
      : regime === "uk"
        ? "As the Privacy and Electronic Communications Regulations (PECR) require, non-essential cookies are set only after you accept them."
        : 'You can opt out of cookies used for cross-context behavioural advertising through the "Do Not Sell or Share My Personal Information" link and by sending a Global Privacy Control signal, which we honour.';
  return () => [
    {
      titulo: "1. What cookies are",
      paragrafos: [
        "Cookies are small files that [SITE NAME] ([SITE ADDRESS]) stores in your browser to remember information about your visit. Similar technologies (local storage, pixels) follow the same rules as this policy.",
      ],
    },
    {
      titulo: "2. The cookies we use",
      itens: [
        "<b>Strictly necessary</b>: make the site work (security, your privacy choices, basket or session). They need no consent and cannot be switched off by the site;",
        "<b>Performance and statistics</b>: measure the audience in aggregate, so we know which pages are visited and can improve the site;",
        "<b>Functionality</b>: remember choices such as language and theme;",
        "<b>Advertising</b>: where present, show more relevant ads and measure their effect.",
      ],
    },
    {
      titulo: "3. Your choice",
      paragrafos: [
        `${rule} You can change your choice at any time through the cookie banner or by deleting cookies in your browser; refusing non-essential cookies does not stop you from using the site.`,
      ],
    },
    {
      titulo: "4. More information",
      paragrafos: [
        "Personal data processed through cookies is handled as our Privacy Policy describes. Questions: [CONTACT E-MAIL].",
      ],
    },
  ];
}

/** Terms of use (English law for `uk`, the member state's for `eu`, California's for `us-ca`). */
export function termsOfUseEn(regime: GdprRegime | "us-ca"): LegalText {
  const consumer =
    regime === "us-ca"
      ? "Nothing in these terms limits rights you have under California law that cannot be waived by contract."
      : regime === "uk"
        ? "Nothing in these terms limits your statutory rights as a consumer, including under the Consumer Rights Act 2015."
        : "Nothing in these terms limits the rights you have as a consumer under the mandatory law of the EU member state where you live.";
  return (c) => [
    {
      titulo: "1. Acceptance",
      paragrafos: [
        `These terms govern your access to and use of [SITE NAME] ([SITE ADDRESS]), operated by ${controllerEn(c)}. By using the site you accept these terms and our Privacy Policy. If you do not agree, please do not use the site.`,
      ],
    },
    {
      titulo: "2. Acceptable use",
      paragrafos: ["You agree to use the site lawfully and in good faith. You must not:"],
      itens: [
        "infringe the rights of others, including intellectual property, image and privacy rights;",
        "send unlawful, offensive, discriminatory or misleading content, or content containing malware;",
        "try to access restricted areas, bypass security measures or overload the site's infrastructure;",
        "collect data about other users or the site by automated means without permission.",
      ],
    },
    {
      titulo: "3. Content and intellectual property",
      paragrafos: [
        `Texts, images, trademarks, logos and other content of the site belong to ${ownerEn(c)} or its licensors. You may share links and quote short extracts with attribution; any other use needs our prior written permission.`,
      ],
    },
    {
      titulo: "4. Third-party links",
      paragrafos: [
        "The site may link to third-party sites with their own terms and policies. We do not control and are not responsible for their content.",
      ],
    },
    {
      titulo: "5. Liability",
      paragrafos: [
        `We work to keep the site available and its information accurate, but the site may be interrupted for maintenance or for reasons beyond our control. ${consumer}`,
      ],
    },
    {
      titulo: "6. Changes and governing law",
      paragrafos: [
        "We may update these terms; the version published on this page applies. These terms are governed by the law of [GOVERNING LAW], and the courts of [COURTS] have jurisdiction, without prejudice to mandatory consumer protection rules.",
        "Contact: [CONTACT E-MAIL].",
      ],
    },
  ];
}

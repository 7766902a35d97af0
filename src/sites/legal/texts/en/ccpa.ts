/**
 * California: the privacy policy and notice at collection of the CCPA as amended by the CPRA (Cal. Civ.
 * Code § 1798.100 ff.; CCPA Regulations, Cal. Code Regs. tit. 11, §§ 7011, 7012, 7013) and the notice of
 * the right to opt out of sale or sharing (§ 1798.120, § 1798.135).
 */
import type { LegalText } from "../sections";
import { controllerEn, ownerEn } from "./common";

export const californiaPrivacyPolicy: LegalText = (c) => [
  {
    titulo: "1. Who we are",
    paragrafos: [
      `This privacy policy describes how ${controllerEn(c)} ("we", "us") collects, uses, discloses and protects personal information on [SITE NAME] ([SITE ADDRESS]), and the rights California residents have under the California Consumer Privacy Act as amended by the California Privacy Rights Act ("CCPA"). It is also our notice at collection.`,
    ],
  },
  {
    titulo: "2. Categories of personal information we collect",
    itens: [
      "identifiers: name, e-mail address, telephone number, IP address;",
      "internet or other electronic network activity: pages visited, browser and device, collected automatically and through cookies;",
      "the content of the messages you send us through our forms;",
      "inferences drawn from the above, only to measure the audience of the site.",
    ],
    fecho: [
      "We collect them from you directly and automatically from your device. We do not collect sensitive personal information for the purpose of inferring characteristics about you.",
    ],
  },
  {
    titulo: "3. Why we collect it",
    itens: [
      "to answer your enquiries and provide what you ask for;",
      "to keep the site secure and prevent fraud;",
      "to measure the audience and improve the site;",
      "to send you news and offers you asked for;",
      "to comply with the law.",
    ],
  },
  {
    titulo: "4. Disclosure, sale and sharing",
    paragrafos: [
      "We disclose personal information to service providers and contractors bound by written contracts (hosting, e-mail delivery, analytics) for the purposes above. In the preceding 12 months we [HAVE NOT OR HAVE] sold personal information or shared it for cross-context behavioural advertising. We do not knowingly sell or share the personal information of consumers under 16.",
      'You may opt out of any sale or sharing at any time through our "Do Not Sell or Share My Personal Information" page; we treat a Global Privacy Control signal from your browser as a valid opt-out.',
    ],
  },
  {
    titulo: "5. How long we keep it",
    paragrafos: [
      "We keep each category only as long as needed for the purposes above: enquiries for up to [RETENTION PERIOD], records the law requires for the period it requires, and marketing data until you opt out.",
    ],
  },
  {
    titulo: "6. Your rights",
    paragrafos: ["If you are a California resident, you have the right to:"],
    itens: [
      "know what personal information we collected about you, its sources, purposes and recipients, and obtain a copy;",
      "delete personal information we collected from you, subject to the exceptions of the law;",
      "correct inaccurate personal information;",
      "opt out of the sale or sharing of your personal information;",
      "limit the use of sensitive personal information, where we use it beyond what the law permits without that right;",
      "not be discriminated against for exercising these rights.",
    ],
    fecho: [
      "To exercise a right, write to [CONTACT E-MAIL] or call [TOLL-FREE NUMBER]. We confirm receipt within 10 business days and answer within 45 calendar days (extendable once by 45 days with notice). We verify your identity before answering a request to know, delete or correct; you may act through an authorised agent.",
    ],
  },
  {
    titulo: "7. Changes to this policy",
    paragrafos: [
      `${ownerEn(c)} reviews this policy at least once every 12 months; the current version and the date of its last update are always published on this page.`,
    ],
  },
];

export const doNotSellOrShare: LegalText = () => [
  {
    titulo: "Your right to opt out",
    paragrafos: [
      "California residents have the right to opt out of the sale of their personal information and of its sharing for cross-context behavioural advertising (Cal. Civ. Code § 1798.120).",
    ],
  },
  {
    titulo: "How to opt out",
    itens: [
      'write to [CONTACT E-MAIL] with the subject "Do Not Sell or Share";',
      "call [TOLL-FREE NUMBER];",
      "or turn on the Global Privacy Control signal in your browser: we treat it as an opt-out for that browser.",
    ],
    fecho: [
      "You do not need an account or to verify your identity to opt out. We act on your request within 15 business days and wait at least 12 months before asking you to opt back in.",
    ],
  },
];

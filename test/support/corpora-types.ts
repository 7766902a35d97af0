/** Shape of the corpora binding (neutral file: read by the Node-side loader and the workerd tests). */
export interface Corpora {
  xss: { title: string; payload: string }[];
  svgMalicious: { name: string; svg: string }[];
  simpleIcons: { slug: string; svg: string }[];
}

/** The contract texts (../shared specs and ARCHITECTURE.md) and the project's docs/not-built.md. */
export interface SpecTexts {
  identity: string;
  content: string;
  sites: string;
  architecture: string;
  notBuilt: string;
}

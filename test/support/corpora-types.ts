/** Shape of the corpora binding (neutral file: read by the Node-side loader and the workerd tests). */
export interface Corpora {
  xss: { title: string; payload: string }[];
  svgMalicious: { name: string; svg: string }[];
  simpleIcons: { slug: string; svg: string }[];
}

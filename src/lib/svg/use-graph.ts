/**
 * Denial of service through `<use>` (reference loops, "billion laughs" of nested uses): a browser
 * instantiates a copy of the referenced subtree for every `use`, recursively.
 *
 * Rules, all computed on the elements that survived the allowlist:
 * - a `use` whose chain of references is longer than MAX_USE_DEPTH, or loops back, is removed;
 * - then a `use` whose single instantiation creates more than MAX_USE_EXPANSION elements is removed;
 * - then, if all remaining uses together instantiate more than MAX_TOTAL_EXPANSION elements, the whole
 *   SVG is refused (`too_large`).
 * Removing a `use` only ever lowers every depth and size, so a second pass removes nothing more: the
 * sanitizer stays idempotent. An id defined twice counts as the worst of its candidates for the same
 * reason.
 */
import type { ElementNode } from "./xml";

export const MAX_USE_DEPTH = 5;
export const MAX_USE_EXPANSION = 2_000;
export const MAX_TOTAL_EXPANSION = 20_000;

export interface UseGraph {
  /** Kept elements in document order. */
  elements: ElementNode[];
  children: (el: ElementNode) => ElementNode[];
  /** Elements a `use` points at (empty for other elements or dangling references). */
  targets: (el: ElementNode) => ElementNode[];
}

interface Frame {
  el: ElementNode;
  deps: ElementNode[];
  /** deps[i] for i >= firstTarget are use targets, the others are children. */
  firstTarget: number;
  next: number;
  childAcc: number;
  targetAcc: number;
  loop: boolean;
  /** Whether this frame's element is a target of the frame below it (else a child). */
  viaUse: boolean;
}

interface Fold {
  child: (acc: number, value: number) => number;
  target: (acc: number, value: number) => number;
  finish: (childAcc: number, targetAcc: number) => number;
}

/**
 * Post-order over children and use targets without recursion (reference chains can be long), memoized.
 * A dependency still on the stack is a loop and makes the result Infinity for everything on it.
 */
function evaluate(graph: UseGraph, fold: Fold): Map<ElementNode, number> {
  const memo = new Map<ElementNode, number>();
  const onStack = new Set<ElementNode>();
  const frame = (el: ElementNode, viaUse: boolean): Frame => {
    onStack.add(el);
    const children = graph.children(el);
    return {
      el,
      deps: [...children, ...graph.targets(el)],
      firstTarget: children.length,
      next: 0,
      childAcc: 0,
      targetAcc: 0,
      loop: false,
      viaUse,
    };
  };
  const add = (f: Frame, value: number, viaUse: boolean) => {
    if (viaUse) f.targetAcc = fold.target(f.targetAcc, value);
    else f.childAcc = fold.child(f.childAcc, value);
  };
  for (const start of graph.elements) {
    if (memo.has(start)) continue;
    const stack: Frame[] = [frame(start, false)];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.deps.length) {
        const dep = top.deps[top.next]!;
        const viaUse = top.next >= top.firstTarget;
        top.next++;
        const known = memo.get(dep);
        if (known !== undefined) add(top, known, viaUse);
        else if (onStack.has(dep)) top.loop = true;
        else stack.push(frame(dep, viaUse));
        continue;
      }
      stack.pop();
      onStack.delete(top.el);
      const value = top.loop ? Number.POSITIVE_INFINITY : fold.finish(top.childAcc, top.targetAcc);
      memo.set(top.el, value);
      const parent = stack[stack.length - 1];
      if (parent) add(parent, value, top.viaUse);
    }
  }
  return memo;
}

/** Length of the longest chain of use references below an element (Infinity when it loops). */
export function useDepths(graph: UseGraph): Map<ElementNode, number> {
  return evaluate(graph, {
    child: (acc, v) => Math.max(acc, v),
    target: (acc, v) => Math.max(acc, v + 1),
    finish: (c, t) => Math.max(c, t),
  });
}

/**
 * Elements instantiated when an element is rendered: itself, its children and, for a use, the largest
 * candidate target.
 */
export function expansionSizes(graph: UseGraph): Map<ElementNode, number> {
  return evaluate(graph, {
    child: (acc, v) => acc + v,
    target: (acc, v) => Math.max(acc, v),
    finish: (c, t) => 1 + c + t,
  });
}

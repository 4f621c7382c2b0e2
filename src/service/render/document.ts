/** Text written inside a CDATA section in XML, and as a plain string in JSON and HTML. */
export class CData {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

export type Leaf = string | number | boolean | null | CData;
export type Node = Leaf | Tree | readonly Leaf[] | readonly Tree[];
/** An element's children by name, in document order. Arrays are repeated elements. */
export interface Tree {
  readonly [name: string]: Node | undefined;
}

/** What a handler returns: the root element's name and its children. */
export interface Document {
  readonly root: string;
  readonly body: Tree;
}

export function isLeaf(node: Node): node is Leaf {
  return node === null || typeof node !== 'object' || node instanceof CData;
}

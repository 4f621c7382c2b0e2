import type { TreeObject, TreeValue } from './tree.ts';
import * as field from './tree-fields.ts';

// The database answers of Part C (systemdb, statusdb, actiondb): a database's tables, or
// a page of one table's rows.

/**
 * A page of a database's tables or of a table's rows. Behind a gateway, a long table's
 * answer states `Bound` instead of `Total`: the first rows it read, of a table that may hold
 * more (contract section 12); no total is known then.
 */
export interface TablePageInfo extends field.PageInfo {
  /** Rows read of a table that may hold more; undefined when the answer says none. */
  readonly bound: number | undefined;
}

export interface TableList {
  readonly info: TablePageInfo;
  readonly tables: readonly string[];
}

export interface ColumnInfo {
  readonly name: string;
  readonly type: string;
  readonly key: boolean;
}

export interface TablePage {
  readonly info: TablePageInfo;
  readonly columns: readonly ColumnInfo[];
  /** Cells in header order; a SQL NULL is null, distinct from an empty string. */
  readonly rows: readonly (readonly (string | null)[])[];
}

function resultParts(tree: TreeObject): {
  info: TablePageInfo;
  header: TreeValue[];
  records: TreeValue[][];
} {
  const r = field.rootOf(tree, 'Result');
  return {
    info: {
      ...field.decodePageInfo(r.Info),
      bound: field.optionalNumber(field.object(r.Info, 'Info'), 'Bound'),
    },
    header: field.list(field.object(r.Header, 'Header').Item),
    records: field.elements(r, 'Record').map((record) => field.list(record.Item)),
  };
}

export function decodeTableList(tree: TreeObject): TableList {
  const { info, records } = resultParts(tree);
  return { info, tables: records.map((items) => String(items[0] ?? '')) };
}

export function decodeTablePage(tree: TreeObject): TablePage {
  const { info, header, records } = resultParts(tree);
  return {
    info,
    // Only a table page's header items are columns; a list of tables' are left unread.
    columns: header.map((item) => {
      const column = field.object(item, 'Item');
      return {
        ...field.named(column, field.text, 'Name', 'Type'),
        key: field.text(column, 'Key') === 'true',
      };
    }),
    rows: records.map((items) =>
      items.map((cell) => (cell === null ? null : typeof cell === 'object' ? '' : String(cell))),
    ),
  };
}

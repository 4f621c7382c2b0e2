import type { Document, Leaf } from '../../render/document.ts';
import type { PageInfo } from '../paging.ts';

/** A column of a table page. */
export interface ResultColumn {
  readonly name: string;
  readonly type: string;
  readonly key: string;
}

/**
 * The Result answer of systemdb, statusdb and actiondb (contract section 8): the list of
 * tables when `columns` is undefined (one cell per record, the table's name), else a page of
 * one table. `bound`: only so many rows were read of a table that may hold more, so the
 * page says how many instead of a Total it does not know.
 */
export function resultDocument(
  paging: PageInfo,
  columns: readonly ResultColumn[] | undefined,
  rows: readonly (readonly Leaf[])[],
  bound?: number,
): Document {
  const { Index, Prev, Next, Count, Total } = paging;
  return {
    root: 'Result',
    body: {
      Info:
        bound === undefined
          ? { Index, Prev, Next, Count, Total }
          : { Index, Prev, Next, Count, Bound: bound },
      Header: {
        Item:
          columns === undefined
            ? ['tablename']
            : columns.map((c) => ({ Name: c.name, Type: c.type, Key: c.key })),
      },
      Record: rows.map((cells) => ({ Item: cells })),
      Status: 'OK',
    },
  };
}

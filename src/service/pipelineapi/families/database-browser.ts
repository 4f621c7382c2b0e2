import { ErrorCode, type DatabaseName } from '../../../kit/wire.ts';
import type { ServiceContext } from '../../context.ts';
import { PageTooLargeError, readTablePage } from '../../db/catalogue.ts';
import { ApiError, badParameter } from '../../errors.ts';
import { elementOf, elementsOf, leafText } from '../../../kit/index.ts';
import { readAll } from '../../gateway/paging.ts';
import { formatBytes } from '../../limits.ts';
import type { Leaf } from '../../render/document.ts';
import { resultDocument } from '../answers/result.ts';
import { oneLineParam, pageParams, TABLE_NAME_FORM, tableNameSchema, whole } from '../fields.ts';
import type { OperationAnswers } from '../operation.ts';
import { pageInfo } from '../paging.ts';
import type { Params } from '../params.ts';

// systemdb, statusdb and actiondb: the tables of a database, or a page of one table.

/** Rows of one table the gateway reads at most; beyond, a page says the table has more. */
export const TABLE_BOUND = 20_000;

/** A table the embedded engine has, by the name in parameter `name`; 404 when there is none. */
export function embeddedTable(
  ctx: ServiceContext,
  database: DatabaseName,
  requested: string,
  name: string,
): string {
  if (!TABLE_NAME_FORM.test(requested)) {
    throw badParameter(name, 'must be a table name (letters, digits and _)');
  }
  const table = ctx.dbs.catalogues[database].find(ctx.dbs.readers[database], requested);
  if (!table) {
    throw new ApiError(
      404,
      ErrorCode.TableNotFound,
      `Table ${requested} does not exist in the ${database} database.`,
    );
  }
  return table;
}

/** A table row's cells as read loosely: text, or null for XML's `isnull="true"`. */
function recordCells(record: Readonly<Record<string, unknown>>): Leaf[] {
  const items = record.Item;
  const values = Array.isArray(items) ? (items as unknown[]) : items === undefined ? [] : [items];
  return values.map((v) =>
    typeof v === 'string'
      ? v
      : v !== null && typeof v === 'object' && (v as Record<string, unknown>)['@_isnull'] === 'true'
        ? null
        : typeof v === 'object' &&
            v !== null &&
            typeof (v as Record<string, unknown>)['#text'] === 'string'
          ? ((v as Record<string, unknown>)['#text'] as string)
          : '',
  );
}

/** `tablename`, which `tableOf` checks before the paging is read, then `pagesize` and `index`. */
function browseParams<T>(params: Params, tableOf: (requested: string | undefined) => T) {
  const table = tableOf(oneLineParam(params, 'tablename', 128));
  return { table, ...pageParams(params, 10_000) };
}

export const databaseBrowser = (database: DatabaseName): OperationAnswers => ({
  embedded: (ctx, params) => {
    const { table, pageSize, index } = browseParams(params, (requested) =>
      requested === undefined ? undefined : embeddedTable(ctx, database, requested, 'tablename'),
    );
    const db = ctx.dbs.readers[database];
    if (table === undefined) {
      const tables = ctx.dbs.catalogues[database].tables(db);
      const slice = tables.slice(index, index + pageSize);
      return resultDocument(
        pageInfo(index, pageSize, slice.length, tables.length),
        undefined,
        slice.map((name) => [name]),
      );
    }
    let page;
    try {
      page = readTablePage(db, table, index, pageSize, ctx.limits.maxAnswerBytes);
    } catch (error) {
      if (!(error instanceof PageTooLargeError)) throw error;
      throw badParameter(
        'pagesize',
        `asks for a page of ${table} larger than ${formatBytes(ctx.limits.maxAnswerBytes)} (the limit of one answer); ${error.rowsThatFit} rows fit from index ${index}`,
      );
    }
    return resultDocument(
      pageInfo(index, pageSize, page.rows.length, page.total),
      page.columns.map((c) => ({ name: c.name, type: c.type, key: String(c.key) })),
      page.rows,
    );
  },

  upstream: async (upstream, params) => {
    const { table, pageSize, index } = browseParams(params, (requested) => requested);
    const {
      items,
      whole: readWhole,
      tree,
    } = await readAll(
      upstream,
      `${database}db`,
      { tablename: table },
      { root: 'Result', record: 'Record', map: recordCells, key: (cells) => JSON.stringify(cells) },
      TABLE_BOUND,
    );
    const page = items.slice(index, index + pageSize);
    const header = elementOf(elementOf(tree.Result).Header);
    return resultDocument(
      pageInfo(index, pageSize, page.length, items.length),
      table === undefined
        ? undefined
        : elementsOf(header.Item).map((c) => ({
            name: leafText(c.Name),
            type: leafText(c.Type),
            key: leafText(c.Key) || 'false',
          })),
      page,
      // Only what was read is counted: past the bound, no Total is said, and Bound tells
      // how many rows were read of a table that may hold more.
      readWhole ? undefined : items.length,
    );
  },

  openapi: {
    summary: `Tables of the ${database} database, or a page of one table`,
    fields: [
      {
        name: 'tablename',
        schema: tableNameSchema,
        description: 'the table to read; none lists tables',
      },
      { name: 'index', schema: whole(0, 1_000_000_000) },
      { name: 'pagesize', schema: whole(1, 10_000) },
    ],
    root: 'Result',
  },
});

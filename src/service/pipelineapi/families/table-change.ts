import { ErrorCode } from '../../../kit/wire.ts';
import { deleteAllRows, dropTable } from '../../db/action/tables.ts';
import { ApiError, stateConflict } from '../../errors.ts';
import { executeResponse } from '../answers/execute-response.ts';
import { requiredTableParam, tableNameSchema } from '../fields.ts';
import type { OperationAnswers } from '../operation.ts';
import { embeddedTable } from './database-browser.ts';
import { upstreamChange } from './upstream-change.ts';

// deletetable and droptable: every row of an action table, or the table itself.

export const tableChange = (change: 'delete' | 'drop', summary: string): OperationAnswers => ({
  embedded: async (ctx, params) => {
    const table = embeddedTable(ctx, 'action', requiredTableParam(params, 'table'), 'table');
    if (ctx.engine.isTableInUse(table)) {
      throw stateConflict(
        `Table ${table} is being written by a running request; try again when it ends.`,
      );
    }
    const rows = await ctx.engine.writeAction(() => {
      // Looked up again under the lock: a Joint that just ended may have created or changed it.
      const current = ctx.dbs.catalogues.action.find(ctx.dbs.action, table);
      if (!current)
        throw new ApiError(
          404,
          ErrorCode.TableNotFound,
          `Table ${table} does not exist in the action database.`,
        );
      const count =
        change === 'delete'
          ? deleteAllRows(ctx.dbs.action, current)
          : dropTable(ctx.dbs.action, current);
      // A drop changes no rows SQLite counts: cached pages of the table must still go.
      ctx.dbs.touch();
      return count;
    });
    return executeResponse({ RowCount: rows });
  },
  upstream: upstreamChange(change === 'delete' ? 'deletetable' : 'droptable', (p) => ({
    table: requiredTableParam(p, 'table'),
  })),
  openapi: {
    summary,
    fields: [{ name: 'table', schema: tableNameSchema, required: true }],
    root: 'ExecuteResponse',
  },
});

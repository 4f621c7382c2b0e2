import { statusTableName } from '../../../kit/wire.ts';
import { databaseBrowser } from '../families/database-browser.ts';
import { readSample, type OperationModule } from '../operation.ts';

// statusdb: the tables of the status database, or a page of one table.
export const statusdb: OperationModule = {
  ...databaseBrowser('status'),
  samples: [
    readSample('statusdb table list'),
    readSample('statusdb page with NULL cells and a key column', (f) => ({
      tablename: statusTableName(f.day),
    })),
  ],
};

import { databaseBrowser } from '../families/database-browser.ts';
import { readSample, type OperationModule } from '../operation.ts';

// systemdb: the tables of the system database, or a page of one table.
export const systemdb: OperationModule = {
  ...databaseBrowser('system'),
  samples: [
    readSample('systemdb table list'),
    readSample('systemdb page', () => ({ tablename: 'PIPELINE', pagesize: '5' })),
  ],
};

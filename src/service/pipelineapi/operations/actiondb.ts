import { databaseBrowser } from '../families/database-browser.ts';
import { readSample, type OperationModule } from '../operation.ts';

// actiondb: the tables of the action database, or a page of one table.
export const actiondb: OperationModule = {
  ...databaseBrowser('action'),
  samples: [
    readSample('actiondb table list'),
    readSample('actiondb page with a key column', () => ({ tablename: 'ORDERS' })),
    readSample('actiondb page with a NULL cell', () => ({ tablename: 'EVENTS' })),
    readSample('actiondb empty page', () => ({ tablename: 'ORDERS', index: '1000' })),
  ],
};

import { databaseBrowser } from '../families/database-browser.ts';

// systemdb: the tables of the system database, or a page of one table.
export const systemdb = databaseBrowser('system');

import { databaseBrowser } from '../families/database-browser.ts';

// statusdb: the tables of the status database, or a page of one table.
export const statusdb = databaseBrowser('status');

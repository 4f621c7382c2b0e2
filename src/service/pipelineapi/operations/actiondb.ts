import { databaseBrowser } from '../families/database-browser.ts';

// actiondb: the tables of the action database, or a page of one table.
export const actiondb = databaseBrowser('action');

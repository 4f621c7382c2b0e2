import { tableChange } from '../families/table-change.ts';

// deletetable: delete every row of an action table.
export const deletetable = tableChange('delete', 'Delete every row of an action table');

import { tableChange } from '../families/table-change.ts';

// droptable: drop an action table.
export const droptable = tableChange('drop', 'Drop an action table');

import { tableChange } from '../families/table-change.ts';
import type { OperationModule } from '../operation.ts';

// deletetable: delete every row of an action table.
export const deletetable: OperationModule = {
  ...tableChange('delete', 'Delete every row of an action table'),
  samples: [
    { label: 'deletetable, with RowCount', phase: 'change', fields: () => ({ table: 'ORDERS' }) },
  ],
};

import { tableChange } from '../families/table-change.ts';
import type { OperationModule } from '../operation.ts';

// droptable: drop an action table.
export const droptable: OperationModule = {
  ...tableChange('drop', 'Drop an action table'),
  samples: [
    { label: 'droptable, with RowCount', phase: 'change', fields: () => ({ table: 'EVENTS' }) },
  ],
};

import type { OperationName } from '../../../kit/wire.ts';
import type { OperationModule } from '../operation.ts';
import { actiondb } from './actiondb.ts';
import { deletetable } from './deletetable.ts';
import { droptable } from './droptable.ts';
import { exec } from './exec.ts';
import { inbox } from './inbox.ts';
import { list } from './list.ts';
import { pipelinecache } from './pipelinecache.ts';
import { requestcancel } from './requestcancel.ts';
import { requestdetail } from './requestdetail.ts';
import { requestlist } from './requestlist.ts';
import { requestretry } from './requestretry.ts';
import { requeststats } from './requeststats.ts';
import { resume } from './resume.ts';
import { statusdb } from './statusdb.ts';
import { suspend } from './suspend.ts';
import { systemdb } from './systemdb.ts';
import { version } from './version.ts';

/**
 * Every Part C operation, one module each. A Record over wire.ts's OPERATIONS: an operation
 * named there fails the type check until its module is here.
 */
export const OPERATION_MODULES: Readonly<Record<OperationName, OperationModule>> = {
  list,
  exec,
  requestlist,
  requestdetail,
  requeststats,
  inbox,
  requestretry,
  requestcancel,
  resume,
  suspend,
  version,
  systemdb,
  statusdb,
  actiondb,
  pipelinecache,
  deletetable,
  droptable,
};

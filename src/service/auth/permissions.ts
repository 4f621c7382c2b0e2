import { OPERATIONS, type OperationName, type Role } from '../../kit/wire.ts';

const READS = (Object.keys(OPERATIONS) as OperationName[]).filter((op) => OPERATIONS[op] === 'GET');
const OPERATOR: readonly OperationName[] = [
  ...READS,
  'resume',
  'suspend',
  'requestretry',
  'requestcancel',
];
const DEVELOPER: readonly OperationName[] = [...OPERATOR, 'exec', 'pipelinecache'];

/** Which Part C operations each role may call with a management console session (contract 4). */
export const ROLE_OPERATIONS: Readonly<Record<Role, ReadonlySet<OperationName>>> = {
  operator: new Set(OPERATOR),
  developer: new Set(DEVELOPER),
  administrator: new Set(Object.keys(OPERATIONS) as OperationName[]),
};

export function mayCall(role: Role, operation: OperationName): boolean {
  return ROLE_OPERATIONS[role].has(operation);
}

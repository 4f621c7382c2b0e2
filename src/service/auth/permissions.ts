import { ROLE_OPERATIONS, type OperationName, type Role } from '../../kit/wire.ts';

export function mayCall(role: Role, operation: OperationName): boolean {
  return ROLE_OPERATIONS[role].has(operation);
}

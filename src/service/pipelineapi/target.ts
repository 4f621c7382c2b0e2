import {
  OPERATIONS,
  RESPONSE_TYPES,
  type OperationName,
  type ResponseType,
} from '../../kit/wire.ts';

export const PIPELINE_API_PREFIX = '/pipelineapi';
/** `/services/<id>/pipelineapi/...` reaches service `<id>` (contract section 7). */
export const SERVICES_PREFIX = '/services';
const SERVICE_PATH = /^\/services\/([^/?]*)(\/pipelineapi(?:\/|$).*)$/;

export interface Target {
  readonly operation: OperationName | undefined;
  readonly api: string;
  readonly type: ResponseType | undefined;
  readonly rawType: string | undefined;
}

const RESPONSE_TYPE_SET: ReadonlySet<string> = new Set(RESPONSE_TYPES);

/** Where the operation's name starts in a Part C path: after `/pipelineapi/`. */
const OPERATION_START = PIPELINE_API_PREFIX.length + 1;

/**
 * The operation and response type a Part C URL names. Runs on every call, so by index and
 * slice: the regular expression only for `/services/<id>/...` paths (docs/throughput.md).
 */
export function parseTarget(url: string): Target {
  const query = url.indexOf('?');
  const whole = query < 0 ? url : url.slice(0, query);
  const path = whole.startsWith(`${SERVICES_PREFIX}/`)
    ? (SERVICE_PATH.exec(whole)?.[2] ?? whole)
    : whole;
  const slash = path.indexOf('/', OPERATION_START);
  const api = slash < 0 ? path.slice(OPERATION_START) : path.slice(OPERATION_START, slash);
  const rawType = slash < 0 ? undefined : path.slice(slash + 1);
  const type =
    rawType === undefined || rawType === ''
      ? 'xml'
      : RESPONSE_TYPE_SET.has(rawType)
        ? (rawType as ResponseType)
        : undefined;
  const operation = Object.hasOwn(OPERATIONS, api) ? (api as OperationName) : undefined;
  return { operation, api, type, rawType };
}

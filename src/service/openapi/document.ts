import {
  API_KEY_HEADER,
  ErrorCode,
  FS_SESSION_HEADER,
  MC_SESSION_HEADER,
  OPERATIONS,
  RESPONSE_TYPES,
  SESSION_COOKIE,
  type OperationName,
} from '../../kit/wire.ts';
import { BULK_ENDPOINTS } from './bulk-endpoints.ts';
import { HISTORY_ENDPOINTS } from './history-endpoints.ts';
import { FLEET_ENDPOINTS } from './fleet-endpoints.ts';
import type { Field } from '../pipelineapi/operation.ts';
import { OPERATION_MODULES } from '../pipelineapi/operations/index.ts';
import { ENDPOINTS, type Answer, type Endpoint } from './endpoints.ts';
import { partCAnswer, partCSchemas, type Schema } from './schemas.ts';

/** Part C's three formats as media types (wire.ts CONTENT_TYPES without the charset). */
export const PART_C_MEDIA = { xml: 'text/xml', json: 'text/javascript', htm: 'text/html' } as const;

/** Part C answers with an error, by HTTP status (contract section 3). */
const PART_C_ERRORS: Readonly<Record<string, string>> = {
  '400': `A missing or malformed parameter, named (${ErrorCode.MissingParameter}, ${ErrorCode.BadParameter}, ${ErrorCode.UnknownResponseType})`,
  '401': `No credentials or wrong ones (${ErrorCode.NoCredentials}, ${ErrorCode.BadCredentials})`,
  '403': `The API is disabled, or the role may not (${ErrorCode.ApiDisabled}, ${ErrorCode.RoleForbidden})`,
  '404': `No such pipeline, request, table or service (${ErrorCode.PipelineNotFound}, ${ErrorCode.RequestNotFound}, ${ErrorCode.TableNotFound}, ${ErrorCode.UnknownApi})`,
  '405': `Another method (${ErrorCode.MethodNotAllowed})`,
  '409': `The request or table is in a state that does not allow it (${ErrorCode.StateConflict})`,
  '413': `The body is over 1 MiB (${ErrorCode.BodyTooLarge})`,
  '500': `Anything unexpected; the Message carries the correlation id the server logged (${ErrorCode.Internal})`,
  '502': `A gateway's upstream failed (${ErrorCode.UpstreamFailed})`,
  '503': `The data cannot be written, or the gateways' shared database is unreachable (${ErrorCode.Unavailable})`,
  '504': `A gateway's upstream did not answer in time (${ErrorCode.UpstreamTimeout})`,
};

/** XML and HTML carry the tree of the JSON form (contract section 2), which the kit decodes. */
const sameTree = (format: string): Schema => ({
  type: 'string',
  description: `The JSON form's tree written as ${format} (contract section 2); the kit's decoder reads it back to that tree.`,
});

function partCContent(schema: Schema): Record<string, { schema: Schema }> {
  return {
    [PART_C_MEDIA.xml]: { schema: sameTree('XML') },
    [PART_C_MEDIA.json]: { schema },
    [PART_C_MEDIA.htm]: { schema: sameTree('HTML tables') },
  };
}

function fieldParameters(fields: readonly Field[], where: 'query' | 'body') {
  if (fields.length === 0) return {};
  if (where === 'query') {
    return {
      parameters: fields.map((f) => ({
        name: f.name,
        in: 'query',
        required: f.required === true,
        schema: f.schema,
        ...(f.description ? { description: f.description } : {}),
      })),
    };
  }
  return {
    requestBody: {
      required: fields.some((f) => f.required),
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            properties: Object.fromEntries(fields.map((f) => [f.name, f.schema])),
            required: fields.filter((f) => f.required).map((f) => f.name),
          },
        },
      },
    },
  };
}

const inBody = (method: string): 'query' | 'body' =>
  method === 'POST' || method === 'PUT' ? 'body' : 'query';

const securityOf = (names: readonly string[] | undefined) =>
  names === undefined ? [] : names.map((name) => (name === 'none' ? {} : { [name]: [] }));

const PART_C_SECURITY = securityOf(['apiKey', 'mcSession', 'cookie']);

function partCOperation(operation: OperationName, service: boolean) {
  const spec = OPERATION_MODULES[operation].openapi;
  const method = OPERATIONS[operation];
  const parameters = [
    ...(service
      ? [{ name: 'service', in: 'path', required: true, schema: { type: 'string' } }]
      : []),
    {
      name: 'format',
      in: 'path',
      required: true,
      schema: { enum: [...RESPONSE_TYPES] },
      description: 'xml (also when the segment is left out), json or htm',
    },
  ];
  const fields = fieldParameters(spec.fields, inBody(method));
  const error = partCAnswer(['ExecuteResponse']);
  return {
    path: `${service ? '/services/{service}' : ''}/pipelineapi/${operation}/{format}`,
    method: method.toLowerCase(),
    operation: {
      operationId: service ? `service-${operation}` : operation,
      tags: [service ? 'Part C (one service of several)' : 'Part C'],
      summary: spec.summary,
      security: PART_C_SECURITY,
      ...fields,
      parameters: [...parameters, ...(('parameters' in fields && fields.parameters) || [])],
      responses: {
        '200': { description: spec.root, content: partCContent(partCAnswer([spec.root])) },
        ...Object.fromEntries(
          Object.entries(PART_C_ERRORS).map(([status, description]) => [
            status,
            { description, content: partCContent(error) },
          ]),
        ),
      },
    },
  };
}

function answerObject(answer: Answer) {
  return {
    description: answer.description,
    content: Object.fromEntries(
      Object.entries(answer.content).map(([media, schema]) => [media, { schema }]),
    ),
  };
}

function withPathFields(
  fields: ReturnType<typeof fieldParameters>,
  pathFields: readonly Field[],
): Record<string, unknown> {
  if (pathFields.length === 0) return fields;
  const inPath = pathFields.map((f) => ({
    name: f.name,
    in: 'path',
    required: true,
    schema: f.schema,
    ...(f.description ? { description: f.description } : {}),
  }));
  return {
    ...fields,
    parameters: [...inPath, ...(('parameters' in fields && fields.parameters) || [])],
  };
}

/**
 * Anything unexpected answers 500, and a shared database gone (contract section 11) 503, in
 * the shape of the endpoint's other errors (Part A's envelope with its internal code, Part
 * B's XML): added to every endpoint that has errors.
 */
function withInternal(answers: Endpoint['answers']): Endpoint['answers'] {
  const error = Object.entries(answers).find(([status]) => Number(status) >= 400)?.[1];
  if (!error) return answers;
  return {
    '500': {
      description: 'Anything unexpected; the message carries the correlation id the server logged',
      content: error.content,
    },
    '503': {
      description:
        "The data cannot be written, or the gateways' shared database is unreachable (named, its password masked)",
      content: error.content,
    },
    ...answers,
  };
}

function endpointOperation(endpoint: Endpoint) {
  const path = endpoint.path;
  return {
    path,
    method: endpoint.method.toLowerCase(),
    operation: {
      operationId: `${endpoint.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      tags: [endpoint.tag],
      summary: endpoint.summary,
      security: securityOf(endpoint.security),
      ...withPathFields(
        fieldParameters(endpoint.fields ?? [], inBody(endpoint.method)),
        endpoint.pathFields ?? [],
      ),
      responses: Object.fromEntries(
        Object.entries(withInternal(endpoint.answers)).map(([status, answer]) => [
          status,
          answerObject(answer),
        ]),
      ),
    },
  };
}

export type OpenApiDocument = {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, Record<string, unknown>>>;
  readonly components: {
    readonly schemas: Record<string, Schema>;
    readonly securitySchemes: Record<string, unknown>;
  };
} & Record<string, unknown>;

/**
 * The OpenAPI 3.1 document of everything the server answers, built from each Part C operation's module (pipelineapi/operations/) and ENDPOINTS.
 * `basePath` (`--base-path`, '' at the root) is its one server: relative, so that the
 * document is right whatever host and scheme a proxy puts in front.
 */
export function openApiDocument(version: string, basePath = ''): OpenApiDocument {
  const operations = [
    ...(Object.keys(OPERATIONS) as OperationName[]).flatMap((op) => [
      partCOperation(op, false),
      partCOperation(op, true),
    ]),
    ...[...ENDPOINTS, ...BULK_ENDPOINTS, ...FLEET_ENDPOINTS, ...HISTORY_ENDPOINTS].map(
      endpointOperation,
    ),
  ];
  const paths: OpenApiDocument['paths'] = {};
  for (const { path, method, operation } of operations) {
    paths[path] = { ...paths[path], [method]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pipeline service',
      version,
      description:
        'Part C (the pipeline API) in XML, JSON and HTML; Parts A and B (sessions); and this ' +
        "server's extensions. Fields go in the query of a GET or DELETE and in a form body " +
        '(or the query) of a POST or PUT.',
      license: { name: 'BSD-3-Clause', identifier: 'BSD-3-Clause' },
    },
    servers: [
      {
        url: basePath === '' ? '/' : basePath,
        description: 'This server (the paths below are under it)',
      },
    ],
    paths,
    components: {
      schemas: partCSchemas(),
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: API_KEY_HEADER },
        mcSession: { type: 'apiKey', in: 'header', name: MC_SESSION_HEADER },
        fsSession: { type: 'apiKey', in: 'header', name: FS_SESSION_HEADER },
        cookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
        metricsKey: { type: 'http', scheme: 'bearer' },
      },
    },
  };
}

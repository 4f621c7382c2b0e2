import { ErrorCode } from '../kit/wire.ts';

/** An error with the HTTP status and code it answers with (Part C codes, or Part A/B ones). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

// Every code the service answers with, by name. Part C's own are the contract's (the kit
// owns them, ErrorCode); Parts A and B have the spec's codes plus "common" ones of ours
// (the spec says common codes exist but shows none).

/** Codes of more than one Part: the spec leaves "common error codes" to the service. */
export const CommonCode = {
  NotFound: 4004,
  MethodNotAllowed: 4005,
  TooLarge: 4013,
  TooManyRequests: 4029,
} as const;

/** Part A (management console): interfaces.md section 7, and the common ones. */
export const McCode = {
  Missing: 2002,
  WrongType: 2003,
  NoSession: 3001,
  LoginFailed: 3002,
  Forbidden: 3003,
  SessionNotFound: 4003,
  ...CommonCode,
  Internal: 5102,
} as const;

/** Part B (flow service): interfaces.md section 7, and the common ones. */
export const FsCode = {
  Missing: 2000,
  LoginFailed: 2001,
  SessionNotFound: 2002,
  NoSession: 2003,
  ...CommonCode,
  Internal: 5000,
} as const;

/**
 * Shared code (body limits, parsers, the router, the rate limit) throws Part C codes or
 * common ones; in Part A or B an error speaks that Part's code. Codes of the Part itself
 * (2000–5999, except Part C's 5000) pass through; Part C codes map by this table, and
 * anything else becomes the Part's `fallback`.
 */
export function codeForPart(
  error: ApiError,
  part: { readonly Internal: number; readonly fallback: number },
): number {
  if (error.code === ErrorCode.Internal) return part.Internal;
  if (error.code >= 2000 && error.code < 6000) return error.code;
  return PART_C_TO_COMMON[error.code] ?? part.fallback;
}

const PART_C_TO_COMMON: Readonly<Record<number, number>> = {
  [ErrorCode.BodyTooLarge]: CommonCode.TooLarge,
  [ErrorCode.UnknownApi]: CommonCode.NotFound,
  [ErrorCode.MethodNotAllowed]: CommonCode.MethodNotAllowed,
};

export const missingParameter = (name: string): ApiError =>
  new ApiError(400, ErrorCode.MissingParameter, `Parameter ${name} is required.`);

export const badParameter = (name: string, why: string): ApiError =>
  new ApiError(400, ErrorCode.BadParameter, `Parameter ${name} ${why}.`);

export const stateConflict = (message: string): ApiError =>
  new ApiError(409, ErrorCode.StateConflict, message);

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

export const missingParameter = (name: string): ApiError =>
  new ApiError(400, ErrorCode.MissingParameter, `Parameter ${name} is required.`);

export const badParameter = (name: string, why: string): ApiError =>
  new ApiError(400, ErrorCode.BadParameter, `Parameter ${name} ${why}.`);

export const stateConflict = (message: string): ApiError =>
  new ApiError(409, ErrorCode.StateConflict, message);

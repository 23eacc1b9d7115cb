import { HttpException } from '@nestjs/common';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/** The spec's error body: `{message, errorCode, errorData?, requestId?}`. */
export interface ErrorBody {
  message: string;
  errorCode: ErrorCode;
  errorData?: unknown;
  requestId?: string;
}

/** An error with a documented `errorCode`; its status comes from the registry. */
export class ApiError extends HttpException {
  constructor(
    override readonly errorCode: ErrorCode,
    message: string,
    readonly errorData?: unknown,
  ) {
    super(
      { message, errorCode, ...(errorData === undefined ? {} : { errorData }) },
      ERROR_CODES[errorCode].status,
    );
  }
}

import { HttpException, HttpStatus } from '@nestjs/common';

/** A 429 whose answer carries Retry-After: the caller may try again after `retryAfterSeconds`. */
export class RetryLaterException extends HttpException {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, HttpStatus.TOO_MANY_REQUESTS);
  }
}

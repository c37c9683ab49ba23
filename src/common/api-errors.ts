import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';

/** The body of every refused request. */
export class ErrorBody {
  @ApiProperty({ example: 'name is required' })
  error!: string;
}

const MEANING: Record<number, string> = {
  400: 'Malformed JSON, an unknown or mistyped field, or failed validation (the text names the field)',
  401: 'Missing, malformed, expired or revoked credentials',
  403: 'Authenticated but not allowed (role or beta access)',
  404: 'Unknown resource, or one the caller may not see',
  409: 'Conflict with an existing resource',
  413: 'Body over the size limit',
  415: 'Body is not application/json',
  422: 'Valid, but refused by a rule',
  429: 'Rate limit exceeded; see Retry-After and the RateLimit-* headers',
  503: 'A dependency is unavailable',
};

/** Documents the error answers of an endpoint, each with the `{ "error": "…" }` body. */
export function ApiErrors(...statuses: (keyof typeof MEANING)[]): MethodDecorator & ClassDecorator {
  return applyDecorators(...statuses.map((status) => ApiResponse({ status, description: MEANING[status], type: ErrorBody })));
}

import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { findUnstorable } from './storable-text';

/**
 * Validates bodies and queries against their DTO classes. Unknown fields are refused rather than
 * stripped, and the 400 names the first field at fault, with its path for nested objects. Every
 * body and query, with a DTO or not, is first checked for characters PostgreSQL cannot store, so
 * they are a 400 naming the field rather than a 500 from the statement that tries to store them.
 * Path parameters are not checked here: they are ids, and an id holding such a character names
 * nothing (404 from PublicIdPipe).
 */
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      stopAtFirstError: true,
      exceptionFactory: (errors) => new BadRequestException(describeFirst(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' || metadata.type === 'query') {
      const path = findUnstorable(value, metadata.data ?? '');
      if (path !== null) {
        throw new BadRequestException(
          `${path || (metadata.type === 'body' ? 'Body' : 'Query')} must not contain NUL characters or unpaired surrogates`,
        );
      }
    }
    const hasDto = metadata.metatype !== undefined && metadata.metatype !== Object;
    if (metadata.type === 'body' && hasDto && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw new BadRequestException('Body must be a JSON object');
    }
    return super.transform(value, metadata);
  }
}

function describeFirst(errors: ValidationError[], parentPath = ''): string {
  const error = errors[0];
  if (!error) return 'Request is invalid';
  const path = parentPath ? `${parentPath}.${error.property}` : error.property;
  if (error.constraints) {
    if (error.constraints.whitelistValidation) return `${path} is not a known field`;
    const message = Object.values(error.constraints)[0];
    return message.startsWith(error.property) ? `${path}${message.slice(error.property.length)}` : `${path}: ${message}`;
  }
  return describeFirst(error.children ?? [], path);
}

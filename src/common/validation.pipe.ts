import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { findUnstorable } from './storable-text';

const BODY_MAY_BE_ABSENT = Symbol('body may be absent');

/** On a DTO whose every field is optional: a request that comes without a body is taken as `{}`. */
export function BodyMayBeAbsent(): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(BODY_MAY_BE_ABSENT, true, target);
  };
}

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
    if (metadata.type === 'body' && value === undefined && hasDto && Reflect.getMetadata(BODY_MAY_BE_ABSENT, metadata.metatype!) === true) {
      value = {};
    }
    if (metadata.type === 'body' && hasDto && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw new BadRequestException('Body must be a JSON object');
    }
    return super.transform(value, metadata);
  }
}

/**
 * class-validator's default messages, said as a person would: "name is required", not "name must
 * be longer than or equal to 1 characters". Each pattern is one of its defaults (after the field's
 * name); messages written for a constraint of ours are left as they are.
 */
const READABLE: [RegExp, (match: RegExpMatchArray, value: unknown) => string][] = [
  [
    /^must be longer than or equal to (\d+) characters$/,
    ([, n], value) => (isBlank(value) ? 'is required' : `must be at least ${n} characters`),
  ],
  [/^must be shorter than or equal to (\d+) characters$/, ([, n]) => `must be at most ${n} characters`],
  [/^should not be empty$/, () => 'is required'],
  [/^must be a string$/, (_, value) => (value === undefined || value === null ? 'is required' : 'must be text')],
  [/^must not be less than (\S+)$/, ([, n]) => `must be at least ${n}`],
  [/^must not be greater than (\S+)$/, ([, n]) => `must be at most ${n}`],
  [/^must contain no more than (\d+) elements$/, ([, n]) => `must have at most ${n} items`],
  [/^must contain at least (\d+) elements$/, ([, n]) => `must have at least ${n} items`],
  [/^must be a boolean value$/, () => 'must be true or false'],
  [/^must be one of the following values: (.*)$/, ([, values]) => `must be one of: ${values}`],
  [/^must be an integer number$/, () => 'must be a whole number'],
  [/^must be a number conforming to the specified constraints$/, () => 'must be a number'],
  [/^must be an array$/, () => 'must be a list'],
  [/^must be an email$/, () => 'must be an e-mail address'],
];

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function readable(message: string, value: unknown): string {
  for (const [pattern, say] of READABLE) {
    const match = pattern.exec(message);
    if (match) return say(match, value);
  }
  return message;
}

function describeFirst(errors: ValidationError[], parentPath = ''): string {
  const error = errors[0];
  if (!error) return 'Request is invalid';
  const path = parentPath ? `${parentPath}.${error.property}` : error.property;
  if (error.constraints) {
    if (error.constraints.whitelistValidation) return `${path} is not a known field`;
    const message = Object.values(error.constraints)[0];
    if (!message.startsWith(error.property)) return `${path}: ${message}`;
    const rest = message.slice(error.property.length);
    // "attributes.plan must be …", written by a constraint of ours, keeps its own words.
    return rest.startsWith(' ') ? `${path} ${readable(rest.slice(1), error.value)}` : `${path}${rest}`;
  }
  return describeFirst(error.children ?? [], path);
}

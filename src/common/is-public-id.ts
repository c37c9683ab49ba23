import { ValidateBy, type ValidationOptions } from 'class-validator';
import { type IdPrefix, parsePublicId } from './ids';

/**
 * A field that names a resource by its public id (`inb_…`), or with `{each: true}` an array of them:
 * anything else is a 400 naming the field and the kind of id it takes.
 */
export function IsPublicId(prefix: IdPrefix, kind: string, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPublicId',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && parsePublicId(prefix, value) !== null,
        defaultMessage: () => `$property must ${options?.each ? 'hold' : 'be'} ${kind} (${prefix}_…)`,
      },
    },
    options,
  );
}

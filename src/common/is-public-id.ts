import { ValidateBy } from 'class-validator';
import { type IdPrefix, parsePublicId } from './ids';

/** A query field that names a resource by its public id (`inb_…`): anything else is a 400 naming the field and the kind of id it takes. */
export function IsPublicId(prefix: IdPrefix, kind: string): PropertyDecorator {
  return ValidateBy({
    name: 'isPublicId',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parsePublicId(prefix, value) !== null,
      defaultMessage: () => `$property must be ${kind} (${prefix}_…)`,
    },
  });
}

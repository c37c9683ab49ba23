import { ValidateIf } from 'class-validator';

/**
 * The field may be left out; `null` is validated like any other value, so refused unless the
 * field's own rules take it. class-validator's `@IsOptional()` also skips every rule for `null`,
 * which let `{"password": null}` through to the password hash (a 500 found by fuzzing): it is
 * kept only where `null` means something (clearing a contact's name or e-mail).
 */
export function IsOmittable(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

/** A field that may be left out or set to null (clearing it); any other value is validated. */
export function IsOmittableOrNull(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);
}

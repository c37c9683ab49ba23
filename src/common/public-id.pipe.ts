import { Injectable, NotFoundException, PipeTransform } from '@nestjs/common';
import { IdPrefix, parsePublicId } from './ids';

/**
 * Turns a path id such as `user_0193…` into the stored uuid. An id with another prefix or shape
 * cannot name anything, so it is a 404 like an unknown one.
 */
@Injectable()
export class PublicIdPipe implements PipeTransform<string, string> {
  constructor(
    private readonly prefix: IdPrefix,
    private readonly resource: string,
  ) {}

  transform(value: string): string {
    const uuid = parsePublicId(this.prefix, value);
    if (uuid === null) throw new NotFoundException(`${this.resource} not found`);
    return uuid;
  }
}

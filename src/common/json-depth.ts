/**
 * How deeply a JSON body may nest arrays and objects. Far more than any body of the API or of the
 * channel needs (a WhatsApp webhook nests about ten levels), and far less than what overflows the
 * stack of the recursive code that walks a parsed body: the validation pipe's class-transformer,
 * `findUnstorable` and `toStorable`. A body of 1 MiB can otherwise nest half a million levels.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests arrays and objects deeper than `max`, found in one pass over the text
 * before it is parsed (brackets inside strings do not count). Text that is not JSON answers
 * whatever its brackets say; the parser refuses it afterwards.
 */
export function nestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return false;
}

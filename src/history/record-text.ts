/**
 * The answer's JSON text of a stored v3 record, made from PostgreSQL's text of the `jsonb` (`(state->'v3')::text`)
 * without parsing it into objects and serialising them again: the one pass drops the space `jsonb` prints after
 * each `,` and `:` and puts each currency (`currencyTexts[i]`, already JSON text) in place of its reference
 * `{"$c": i}` (`projections/requests/stored-record.ts`). The result is the text `JSON.stringify` makes of the
 * expanded record, byte for byte: `jsonb` keeps the key order the parsed object would have and escapes strings as
 * `JSON.stringify` does.
 *
 * Returns null when that cannot be promised, and the caller parses instead: a number `JSON.stringify` would print
 * in exponent form (at least 1e21, or below 1e-6: `jsonb` prints them in full), or a reference to a currency the
 * record lacks.
 */
export function recordAnswerText(jsonbText: string, currencyTexts: readonly string[]): string | null {
  if (EXPONENT_FORM.test(jsonbText)) return null;
  let out = '';
  let copied = 0;
  let at = 0;
  const end = jsonbText.length;
  while (at < end) {
    const char = jsonbText.charCodeAt(at);
    if (char === QUOTE) {
      at = afterString(jsonbText, at);
    } else if (char === SPACE) {
      // Outside strings `jsonb` prints a space only after a separator.
      out += jsonbText.slice(copied, at);
      at += 1;
      copied = at;
    } else if (char === OPEN_BRACE && jsonbText.startsWith(REFERENCE, at)) {
      const close = jsonbText.indexOf('}', at);
      const index = jsonbText.slice(at + REFERENCE.length, close);
      if (!DIGITS.test(index)) {
        // Another number (or an object with more keys): the parsing path decides, as it always did.
        if (NUMBER_START.test(index) && !index.includes(',')) return null;
        at += 1;
        continue;
      }
      const currency = currencyTexts[Number(index)];
      if (currency === undefined) return null;
      out += jsonbText.slice(copied, at) + currency;
      at = close + 1;
      copied = at;
    } else {
      at += 1;
    }
  }
  return out + jsonbText.slice(copied);
}

const QUOTE = 34;
const SPACE = 32;
const OPEN_BRACE = 123;
const REFERENCE = '{"$c": ';
const DIGITS = /^[0-9]{1,9}$/;
const NUMBER_START = /^-?[0-9]/;
/** A number token (after `: `, `, ` or `[`) of 22+ integer digits or with 6+ zeros after `0.`; may also match text. */
const EXPONENT_FORM = /(?:[:,] |\[)-?(?:[0-9]{22}|0\.0{6})/;

/** The index just after the string that opens at `start` (its closing quote is the first not escaped). */
function afterString(text: string, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 92) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

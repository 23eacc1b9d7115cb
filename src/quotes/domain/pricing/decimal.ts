/**
 * Exact decimal arithmetic for money: a `Decimal` is a bigint scaled by 10^18, so no floating point ever touches an
 * amount, a price or a USD value. Every operation that can lose digits takes an explicit `Rounding`; the pricing
 * rules (docs/fees.md) round amounts the user receives down and fees the user is charged up.
 *
 * @example
 * Decimal.parse('0.02').div(Decimal.parse('3000'), 'ceil').toString(); // '0.000006666666666667'
 */

/**
 * How to drop digits. `floor` goes towards −∞ and `ceil` towards +∞ (so they stay meaningful for negative values,
 * e.g. a network reward); `trunc` goes towards zero; `halfExpand` rounds to the nearest, a tie away from zero
 * (the usual rounding for display, as `Intl.NumberFormat` names it).
 */
export type Rounding = 'floor' | 'ceil' | 'trunc' | 'halfExpand';

/** Fractional digits every `Decimal` keeps. */
export const FRACTION_DIGITS = 18;

/** USD strings carry at most this many decimals (rounded half away from zero, trailing zeros trimmed). */
export const USD_FRACTION_DIGITS = 6;

/** Percent strings carry at most this many decimals (rounded half away from zero, trailing zeros trimmed). */
export const PERCENT_FRACTION_DIGITS = 4;

const SCALE = 10n ** BigInt(FRACTION_DIGITS);
const DECIMAL_PATTERN = /^(-)?(\d+)(?:\.(\d+))?$/;

/** 10^digits, for a non-negative integer number of digits (token decimals, scale shifts). */
export function pow10(digits: number): bigint {
  if (!Number.isInteger(digits) || digits < 0) {
    throw new RangeError(`Decimal places must be a non-negative integer, got ${digits}`);
  }
  return 10n ** BigInt(digits);
}

/** `numerator / denominator` as an integer, rounded as asked. Throws on a zero denominator. */
export function divide(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  if (denominator === 0n) throw new RangeError(`Division by zero (${numerator} / 0)`);
  const n = denominator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = n / d;
  const remainder = n % d;
  if (remainder === 0n) return quotient;
  const awayFromZero = n < 0n ? quotient - 1n : quotient + 1n;
  switch (rounding) {
    case 'trunc':
      return quotient;
    case 'floor':
      return n < 0n ? awayFromZero : quotient;
    case 'ceil':
      return n > 0n ? awayFromZero : quotient;
    case 'halfExpand':
      return 2n * (remainder < 0n ? -remainder : remainder) >= d ? awayFromZero : quotient;
  }
}

/** `numerator / denominator`, which must be exact; otherwise `what` is named in the error. */
function divideExactly(numerator: bigint, denominator: bigint, what: string): bigint {
  if (numerator % denominator !== 0n) {
    throw new RangeError(`${what} needs more than ${FRACTION_DIGITS} fractional digits; pass a rounding`);
  }
  return numerator / denominator;
}

/** An immutable exact decimal with 18 fractional digits. */
export class Decimal {
  static readonly ZERO = new Decimal(0n);
  static readonly ONE = new Decimal(SCALE);

  private constructor(
    /** The value × 10^18. */
    readonly scaled: bigint,
  ) {}

  /**
   * A decimal string such as `"-12.5"` (digits, an optional `.` and fraction; no exponent, no `+`). More than 18
   * fractional digits need a `rounding`; without one the parse throws rather than silently losing digits.
   */
  static parse(text: string, rounding?: Rounding): Decimal {
    const match = DECIMAL_PATTERN.exec(text);
    if (!match) {
      throw new RangeError(`Not a decimal number: "${text}" (expected e.g. "12", "-0.5" or "1234.000001")`);
    }
    const [, minus, whole, fraction = ''] = match;
    const digits = BigInt(whole + fraction) * (minus ? -1n : 1n);
    if (fraction.length <= FRACTION_DIGITS) {
      return new Decimal(digits * pow10(FRACTION_DIGITS - fraction.length));
    }
    const excess = pow10(fraction.length - FRACTION_DIGITS);
    return new Decimal(
      rounding ? divide(digits, excess, rounding) : divideExactly(digits, excess, `"${text}"`),
    );
  }

  /** An integer. */
  static of(value: bigint | number): Decimal {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw new RangeError(`Decimal.of takes a safe integer, got ${value}; parse a string instead`);
    }
    return new Decimal(BigInt(value) * SCALE);
  }

  /** A value already scaled by 10^18 (the inverse of `.scaled`). */
  static fromScaled(scaled: bigint): Decimal {
    return new Decimal(scaled);
  }

  /** `numerator / denominator` of two integers, rounded to 18 fractional digits. */
  static ratio(numerator: bigint, denominator: bigint, rounding: Rounding): Decimal {
    return new Decimal(divide(numerator * SCALE, denominator, rounding));
  }

  add(other: Decimal): Decimal {
    return new Decimal(this.scaled + other.scaled);
  }

  sub(other: Decimal): Decimal {
    return new Decimal(this.scaled - other.scaled);
  }

  neg(): Decimal {
    return new Decimal(-this.scaled);
  }

  abs(): Decimal {
    return this.scaled < 0n ? this.neg() : this;
  }

  mul(other: Decimal, rounding: Rounding): Decimal {
    return new Decimal(divide(this.scaled * other.scaled, SCALE, rounding));
  }

  div(other: Decimal, rounding: Rounding): Decimal {
    if (other.scaled === 0n) throw new RangeError(`Division by zero (${this.toString()} / 0)`);
    return new Decimal(divide(this.scaled * SCALE, other.scaled, rounding));
  }

  /** −1, 0 or 1 as this is less than, equal to or greater than `other`. */
  compare(other: Decimal): -1 | 0 | 1 {
    if (this.scaled === other.scaled) return 0;
    return this.scaled < other.scaled ? -1 : 1;
  }

  eq(other: Decimal): boolean {
    return this.scaled === other.scaled;
  }

  lt(other: Decimal): boolean {
    return this.scaled < other.scaled;
  }

  lte(other: Decimal): boolean {
    return this.scaled <= other.scaled;
  }

  gt(other: Decimal): boolean {
    return this.scaled > other.scaled;
  }

  gte(other: Decimal): boolean {
    return this.scaled >= other.scaled;
  }

  isZero(): boolean {
    return this.scaled === 0n;
  }

  isNegative(): boolean {
    return this.scaled < 0n;
  }

  isPositive(): boolean {
    return this.scaled > 0n;
  }

  /** This value with at most `places` fractional digits. */
  round(places: number, rounding: Rounding): Decimal {
    if (places >= FRACTION_DIGITS) return this;
    const step = pow10(FRACTION_DIGITS - places);
    return new Decimal(divide(this.scaled, step, rounding) * step);
  }

  /** Rounded to `places` fractional digits (half away from zero unless told), trailing zeros trimmed. */
  format(places: number, rounding: Rounding = 'halfExpand'): string {
    return this.round(places, rounding).toString();
  }

  /** The shortest exact form: no trailing zeros, no `-0`, no exponent (`"1.5"`, `"-0.000001"`, `"0"`). */
  toString(): string {
    return formatUnits(this.scaled, FRACTION_DIGITS);
  }

  toJSON(): string {
    return this.toString();
  }
}

/** The larger of two decimals. */
export function maxDecimal(a: Decimal, b: Decimal): Decimal {
  return a.gte(b) ? a : b;
}

/**
 * A USD value as the API writes it: at most 6 decimals, trailing zeros trimmed; half away from zero unless told
 * (a value something is credited from is written rounded down).
 */
export function formatUsd(value: Decimal, rounding: Rounding = 'halfExpand'): string {
  return value.format(USD_FRACTION_DIGITS, rounding);
}

/** A percentage as the API writes it: at most 4 decimals, half away from zero, trailing zeros trimmed. */
export function formatPercent(value: Decimal): string {
  return value.format(PERCENT_FRACTION_DIGITS);
}

/**
 * An integer amount in a currency's smallest unit as a decimal in whole units: exact for any number of decimals
 * and any size (uint256 included), negative values keep their sign.
 *
 * @example formatUnits(-1_500_000n, 6); // '-1.5'
 */
export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * An amount in the smallest unit as a `Decimal` in whole units. Exact up to 18 decimals; a currency with more
 * decimals needs a `rounding` (otherwise an amount that does not fit throws).
 */
export function fromUnits(units: bigint, decimals: number, rounding?: Rounding): Decimal {
  if (decimals <= FRACTION_DIGITS) return Decimal.fromScaled(units * pow10(FRACTION_DIGITS - decimals));
  const excess = pow10(decimals - FRACTION_DIGITS);
  return Decimal.fromScaled(
    rounding
      ? divide(units, excess, rounding)
      : divideExactly(units, excess, `${units} at ${decimals} decimals`),
  );
}

/** A `Decimal` in whole units as an integer amount in the smallest unit, rounded as asked. */
export function toUnits(value: Decimal, decimals: number, rounding: Rounding): bigint {
  if (decimals >= FRACTION_DIGITS) return value.scaled * pow10(decimals - FRACTION_DIGITS);
  return divide(value.scaled, pow10(FRACTION_DIGITS - decimals), rounding);
}

/**
 * A value as Grafana shows it in the panel's unit (`fieldConfig.defaults.unit`), for the units Ferry's dashboard
 * uses: `s`, `reqps`, `short`, `none`, `percentunit`, `bytes`. Other units print the number and the unit's id.
 * `decimals` fixes the digits after the point; without it, about three significant digits are kept.
 *
 * @example formatValue(0.0042, 's') // '4.2 ms'
 */
export function formatValue(value: number, unit: string | undefined, decimals?: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  switch (unit ?? 'none') {
    case 's':
      return seconds(value, decimals);
    case 'reqps':
      return `${number(value, decimals)} req/s`;
    case 'short':
      return scaled(value, 1000, ['', ' K', ' Mil', ' Bil', ' Tri'], decimals);
    case 'bytes':
      return scaled(value, 1024, [' B', ' KiB', ' MiB', ' GiB', ' TiB'], decimals);
    case 'percentunit':
      return `${number(value * 100, decimals)}%`;
    case 'none':
      return number(value, decimals);
    default:
      return `${number(value, decimals)} ${unit}`;
  }
}

/** About three significant digits, trailing zeros dropped: 1234 → "1234", 12.345 → "12.3", 0.012345 → "0.0123". */
function number(value: number, decimals?: number): string {
  if (decimals !== undefined) return value.toFixed(decimals);
  if (value === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const digits = Math.min(10, Math.max(0, 2 - magnitude));
  return String(Number(value.toFixed(digits)));
}

function scaled(value: number, base: number, suffixes: readonly string[], decimals?: number): string {
  let index = 0;
  let scaledValue = value;
  while (Math.abs(scaledValue) >= base && index < suffixes.length - 1) {
    scaledValue /= base;
    index += 1;
  }
  return `${number(scaledValue, decimals)}${suffixes[index]}`;
}

/** Seconds as Grafana's `s` unit: µs and ms below a second, min, hour and day above a minute. */
function seconds(value: number, decimals?: number): string {
  const size = Math.abs(value);
  if (size === 0) return '0 s';
  if (size < 0.001) return `${number(value * 1e6, decimals)} µs`;
  if (size < 1) return `${number(value * 1000, decimals)} ms`;
  if (size < 60) return `${number(value, decimals)} s`;
  if (size < 3600) return `${number(value / 60, decimals)} min`;
  if (size < 86400) return `${number(value / 3600, decimals)} hour`;
  return `${number(value / 86400, decimals)} day`;
}

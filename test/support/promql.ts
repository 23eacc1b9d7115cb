/** Words of PromQL that are not series names when they stand outside a call: binary operators and modifiers. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'atan2']);

/**
 * The series names an expression selects (PromQL, or a Grafana query with `$variables` and
 * `label_values(metric, label)`). Strings, label matchers, ranges and grouping clauses are removed first; what is
 * left followed by `(` is a function or an aggregation, any other identifier is a series.
 */
export function promqlSeriesNames(expression: string): string[] {
  const text = expression
    .replace(/\blabel_values\(\s*([a-zA-Z_:][\w:]*)\s*,[^)]*\)/g, '$1')
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\$\{[^}]*\}|\$\w+/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = new Set<string>();
  for (const match of text.matchAll(/(?<![\w.:])[a-zA-Z_:][\w:]*/g)) {
    const rest = text.slice(match.index + match[0].length);
    if (/^\s*\(/.test(rest) || KEYWORDS.has(match[0].toLowerCase())) continue;
    names.add(match[0]);
  }
  return [...names];
}

/**
 * The series names a Prometheus text exposition offers, from its `# TYPE` lines (also for metrics with no sample
 * yet): a histogram is queried as `_bucket`, `_sum` and `_count`, a summary also by its own name.
 */
export function exposedSeriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\w+)$/gm)) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

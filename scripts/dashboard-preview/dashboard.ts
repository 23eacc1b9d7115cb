/** The parts of a Grafana dashboard JSON (schema 39) that the preview reads. */
export interface GridPos {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface Target {
  readonly refId: string;
  readonly expr?: string;
  readonly legendFormat?: string;
  readonly hide?: boolean;
}

export interface Threshold {
  readonly color: string;
  readonly value: number | null;
}

export interface FieldDefaults {
  readonly unit?: string;
  readonly min?: number;
  readonly max?: number;
  readonly decimals?: number;
  readonly custom?: {
    readonly fillOpacity?: number;
    readonly stacking?: { readonly mode?: string };
    readonly thresholdsStyle?: { readonly mode?: string };
  };
  readonly thresholds?: { readonly steps?: readonly Threshold[] };
}

export interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly description?: string;
  readonly gridPos: GridPos;
  readonly targets?: readonly Target[];
  readonly fieldConfig?: { readonly defaults?: FieldDefaults };
  /** A collapsed row's panels. */
  readonly panels?: readonly Panel[];
}

export interface Dashboard {
  readonly title: string;
  readonly panels: readonly Panel[];
}

/** Every panel in grid order, a collapsed row's own panels after it (the preview shows rows expanded). */
export function flattenPanels(panels: readonly Panel[]): Panel[] {
  return panels
    .flatMap((panel) => [panel, ...(panel.panels ?? [])])
    .sort((a, b) => a.gridPos.y - b.gridPos.y || a.gridPos.x - b.gridPos.x);
}

export interface QueryVariables {
  /** Grafana's `$__rate_interval`: max(4 × scrape interval, step + scrape interval), in seconds. */
  readonly rateIntervalSeconds: number;
  /** The regex the `$instance` variable stands for; "All" is `.*` (the variable's allValue). */
  readonly instance: string;
}

/** A target's PromQL with the dashboard's variables replaced as Grafana would replace them. */
export function expandExpression(expression: string, variables: QueryVariables): string {
  return expression
    .replace(/\$__rate_interval\b|\$\{__rate_interval\}/g, `${variables.rateIntervalSeconds}s`)
    .replace(/\$instance\b|\$\{instance\}/g, variables.instance);
}

/** A series' legend: the target's `{{label}}` format filled from the series' labels, else the labels themselves. */
export function legendName(format: string | undefined, labels: Readonly<Record<string, string>>): string {
  if (format && format.trim() !== '' && format !== '__auto') {
    return format.replace(/\{\{\s*([a-zA-Z_][\w]*)\s*\}\}/g, (_, name: string) => labels[name] ?? '').trim();
  }
  const { __name__: name, ...rest } = labels;
  const inner = Object.entries(rest)
    .map(([key, value]) => `${key}="${value}"`)
    .join(', ');
  return `${name ?? ''}${inner ? `{${inner}}` : ''}` || 'value';
}

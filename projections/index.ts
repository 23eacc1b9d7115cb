import type { Projection } from './projection.js';
import { streamSummariesProjection } from './stream-summaries/stream-summaries.projection.js';

/** Every projection the app runs. Adding one here is all it takes: the runner builds and follows it. */
export const projections: readonly Projection[] = [streamSummariesProjection as Projection];

export function findProjection(name: string): Projection | undefined {
  return projections.find((projection) => projection.name === name);
}

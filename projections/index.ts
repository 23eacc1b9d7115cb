import {
  appFeeBalancesProjection,
  appFeeClaimsProjection,
} from './app-fee-balances/app-fee-balances.projection.js';
import { apiKeyVolumeProjection } from './api-key-volume/api-key-volume.projection.js';
import type { Projection } from './projection.js';
import { requestDeadlinesProjection } from './request-deadlines/request-deadlines.projection.js';
import { requestStatusProjection } from './request-status/request-status.projection.js';
import { requestsV2Projection } from './requests-v2/requests-v2.projection.js';
import { requestsV3Projection } from './requests-v3/requests-v3.projection.js';
import { streamSummariesProjection } from './stream-summaries/stream-summaries.projection.js';

/** Every projection the app runs. Adding one here is all it takes: the runner builds and follows it. */
export const projections: readonly Projection[] = [
  streamSummariesProjection as Projection,
  requestDeadlinesProjection as Projection,
  requestsV3Projection as Projection,
  requestsV2Projection as Projection,
  requestStatusProjection as Projection,
  appFeeBalancesProjection as Projection,
  appFeeClaimsProjection as Projection,
  apiKeyVolumeProjection as Projection,
];

export function findProjection(name: string): Projection | undefined {
  return projections.find((projection) => projection.name === name);
}

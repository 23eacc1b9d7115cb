import type { ProjectionsService } from '../../projections/projections.service.js';

/**
 * Every projection's generation and lag; throws (with the details attached) naming each projection that has no live
 * generation, serves an old version, or lags more than `limitSeconds`.
 */
export async function projectionLag(
  projections: ProjectionsService,
  limitSeconds: number,
): Promise<Record<string, unknown>> {
  const statuses = await projections.status();
  const details = statuses.map((status) => ({
    name: status.name,
    version: status.version,
    generation: status.live?.generation ?? null,
    lagEvents: status.live?.lagEvents ?? null,
    lagSeconds: status.live?.lagSeconds ?? null,
    building: status.building
      ? { generation: status.building.generation, lagEvents: status.building.lagEvents }
      : null,
  }));
  const failing = statuses.filter(
    (status) => !status.live || status.stale || status.live.lagSeconds > limitSeconds,
  );
  if (failing.length > 0) {
    const reasons = failing.map((status) =>
      !status.live
        ? `${status.name} has no live generation yet`
        : status.stale
          ? `${status.name} is serving version ${status.live.version}, rebuilding to ${status.version}`
          : `${status.name} lags ${status.live.lagSeconds.toFixed(1)} s (limit ${limitSeconds} s)`,
    );
    throw Object.assign(new Error(reasons.join('; ')), { details });
  }
  return { maxLagSeconds: limitSeconds, projections: details };
}

import { dockerReachable } from './eventstoredb.js';

export type ContainerPostgresTarget = { url: string; stop(): Promise<void> } | { skip: string };

/** A throwaway PostgreSQL 15 in a container (testcontainers), where a Docker engine is reachable. */
export async function startContainerPostgres(): Promise<ContainerPostgresTarget> {
  if (!(await dockerReachable())) return { skip: 'skipped: no Docker' };
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgres:15-alpine').start();
  return { url: container.getConnectionUri(), stop: async () => void (await container.stop()) };
}

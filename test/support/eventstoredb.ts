import { GenericContainer, getContainerRuntimeClient, Wait } from 'testcontainers';

const IMAGE = 'eventstore/eventstore:24.10';
const PORT = 2113;
/** testcontainers tries several runtime strategies and can take long to give up; without Docker we skip fast. */
const DOCKER_PROBE_MS = 3000;

export type EventStoreDbTarget = { url: string; stop(): Promise<void> } | { skip: string };

/**
 * An EventStoreDB to test against: `EVENTSTORE_URL` when set, else a throwaway in-memory container when a Docker
 * engine is reachable, else a reason to skip.
 */
export async function findEventStoreDb(): Promise<EventStoreDbTarget> {
  const url = process.env.EVENTSTORE_URL;
  if (url) return { url, stop: async () => {} };
  if (!(await dockerReachable())) return { skip: 'skipped: no Docker engine and no EVENTSTORE_URL' };
  return startContainer();
}

async function startContainer(): Promise<EventStoreDbTarget> {
  const container = await new GenericContainer(IMAGE)
    .withEnvironment({
      EVENTSTORE_INSECURE: 'true',
      EVENTSTORE_RUN_PROJECTIONS: 'None',
      EVENTSTORE_MEM_DB: 'true',
    })
    .withExposedPorts(PORT)
    .withWaitStrategy(Wait.forHttp('/health/live', PORT))
    .start();
  return {
    url: `esdb://${container.getHost()}:${container.getMappedPort(PORT)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
}

export async function dockerReachable(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), DOCKER_PROBE_MS);
  });
  const probe = getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

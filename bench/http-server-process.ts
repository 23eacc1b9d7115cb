import Fastify from 'fastify';
import { benchConfig, startBenchApp } from './bench-app.js';

/**
 * One HTTP server of the floor benchmark in its own process, so that its stdout can be a pipe (as under a process
 * manager or `docker logs`) and its CPU time is its own. `BENCH_HTTP_SERVER=bare` is a bare Fastify server (the
 * anchor); `ferry` is the real app on `DATABASE_URL` at `LOG_LEVEL`, its projections running unless
 * `BENCH_PROJECTIONS_RUN=false` (to split a route's cost from the projections' cost of the events it appends). The port goes to the parent over IPC; the parent
 * asks for the CPU time spent so far with `cpu` and ends the process with `stop`.
 */

interface Started {
  readonly port: number;
  close(): Promise<void>;
}

async function startBare(): Promise<Started> {
  const server = Fastify({ logger: false });
  server.get('/bare', async () => ({}));
  await server.listen({ port: 0, host: '127.0.0.1' });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('The bare server has no port');
  return { port: address.port, close: () => server.close() };
}

async function startFerry(): Promise<Started> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  const config = benchConfig(databaseUrl, {
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    PROJECTIONS_RUN: process.env.BENCH_PROJECTIONS_RUN ?? 'true',
    // The bench's own local chains (benchConfig reads only what it is given, never process.env).
    ...Object.fromEntries(
      ['HEALTH_PROBE_INTERVAL_MS', 'DEVNET_A_RPC_URL', 'DEVNET_B_RPC_URL', 'METRICS_ENABLED'].flatMap(
        (name) => (process.env[name] ? [[name, process.env[name]!]] : []),
      ),
    ),
  });
  const app = await startBenchApp(config);
  return { port: Number(new URL(app.baseUrl).port), close: () => app.close() };
}

async function main(): Promise<void> {
  const server = process.env.BENCH_HTTP_SERVER === 'bare' ? await startBare() : await startFerry();
  process.on('message', (message: string) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send?.({ cpuMs: (usage.user + usage.system) / 1000 });
    } else if (message === 'stop') {
      void server.close().finally(() => process.exit(0));
    }
  });
  process.send?.({ port: server.port });
}

main().catch((error: unknown) => {
  process.stderr.write(`HTTP bench server failed: ${String(error)}\n`);
  process.exit(1);
});

import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { DEVNET_ACCOUNTS } from '../scripts/devnet/deploy-devnet.js';
import { startDevnets } from '../scripts/devnet/devnets.js';
import { measureThroughput } from './http-load.js';
import { type OtlpSink, startOtlpSink } from './otlp-sink.js';
import { percentile, processCpuMs, type ScratchDatabase, startCpu } from './support.js';

/**
 * The HTTP floor (issue 14, goals 2 and 3): requests per second of Ferry's cheapest answers against a bare Fastify
 * server measured in the same run, each server in its own process with stdout read through a pipe by this one.
 */

export interface HttpFloorOptions {
  readonly connections: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Measurements per route; the best is kept (other work on a shared machine only ever slows a run). */
  readonly rounds: number;
}

export interface RouteFigure {
  readonly label: string;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU per 1,000 requests: the server process, this process (load generator, pipe reader), PostgreSQL. */
  readonly serverCpuMs: number;
  readonly loadCpuMs: number;
  readonly postgresCpuMs: number | null;
  /** The local chains' processes (the quote only), null elsewhere. */
  readonly chainsCpuMs: number | null;
  /** Bytes the server wrote to its stdout pipe per request. */
  readonly logBytesPerRequest: number;
  readonly statuses: string;
}

export interface HttpFloorFigures {
  readonly bare: RouteFigure;
  readonly notFound: RouteFigure;
  readonly noop: RouteFigure;
  readonly health: RouteFigure;
  readonly notFoundInfo: RouteFigure;
  readonly noopInfo: RouteFigure;
  /** `POST /quote/v2`, a native bridge 31337 → 31338 with its chain reads served by the local chains. */
  readonly quote: RouteFigure;
  /** Ferry's 404 measured beside the quote (the devnets share the cores): the quote's own anchor. */
  readonly notFoundBesideQuote: RouteFigure;
  /** The no-op with metrics off (`METRICS_ENABLED=false`): the anchor of what metrics cost per request. */
  readonly noopWithoutMetrics: RouteFigure;
  /** The same at warn with tracing on (register file, OTLP export to a sink in this process). */
  readonly notFoundTraced: RouteFigure;
  readonly noopTraced: RouteFigure;
  readonly quoteTraced: RouteFigure;
  /** The same with head sampling at `SAMPLED_RATIO` (`parentbased_traceidratio`). */
  readonly notFoundSampled: RouteFigure;
  readonly noopSampled: RouteFigure;
  /** Spans exported while traced servers ran: OTLP requests and bytes the sink read. */
  readonly exported: { readonly requests: number; readonly bytes: number };
}

/** Node options and environment of a traced server: as docs/operations.md ("Traces") starts one. */
function traced(sink: OtlpSink, ratio?: number): { execArgv: string[]; env: Record<string, string> } {
  const register = fileURLToPath(new URL('../src/telemetry/register.js', import.meta.url));
  const sampled: Record<string, string> =
    ratio === undefined
      ? {}
      : { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: String(ratio) };
  return { execArgv: ['--import', register], env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...sampled } };
}

/** The head-sampling ratio of the sampled variant (docs/operations.md, "Traces": a busy instance's setting). */
export const SAMPLED_RATIO = 0.01;

interface Server {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  stdoutBytes: number;
}

async function startServer(
  kind: 'bare' | 'ferry',
  env: Record<string, string>,
  tracing?: { execArgv: string[]; env: Record<string, string> },
): Promise<Server> {
  const child = fork(new URL('./http-server-process.js', import.meta.url), [], {
    env: { ...process.env, BENCH_HTTP_SERVER: kind, ...env, ...tracing?.env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    // `BENCH_CPU_PROF_DIR=dir`: each server writes a V8 CPU profile there when it stops (open in Chrome DevTools).
    execArgv: [
      ...(tracing?.execArgv ?? []),
      ...(process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
        : []),
    ],
  });
  const server = { child, baseUrl: '', stdoutBytes: 0 };
  // A log shipper reading the pipe: every byte is read, none is kept.
  child.stdout!.on('data', (chunk: Buffer) => {
    server.stdoutBytes += chunk.length;
  });
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error(`The ${kind} bench server exited before listening`);
    }),
  ])) as [{ port: number }];
  server.baseUrl = `http://127.0.0.1:${message.port}`;
  return server;
}

async function serverCpuMs(server: Server): Promise<number> {
  server.child.send('cpu');
  const [message] = (await once(server.child, 'message')) as [{ cpuMs: number }];
  return message.cpuMs;
}

async function stopServer(server: Server): Promise<void> {
  const exited = once(server.child, 'exit');
  server.child.send('stop');
  await exited;
}

async function measure(
  label: string,
  server: Server,
  path: string,
  options: HttpFloorOptions,
  scratch: ScratchDatabase,
  body?: string,
  chainPids: readonly number[] = [],
): Promise<RouteFigure> {
  // Null when a chain's /proc entry cannot be read: no figure rather than a wrong one.
  const chainsMs = (): number | null => {
    const spent = chainPids.map(processCpuMs);
    return spent.some((ms) => ms === null) ? null : spent.reduce<number>((sum, ms) => sum + ms!, 0);
  };
  let best: RouteFigure | undefined;
  for (let round = 0; round < options.rounds; round += 1) {
    const stopPostgres = await startCpu(scratch.db);
    const serverBefore = await serverCpuMs(server);
    const loadBefore = process.cpuUsage();
    const bytesBefore = server.stdoutBytes;
    const chainsBefore = chainsMs();
    const run = await measureThroughput({
      baseUrl: server.baseUrl,
      path,
      headers: {},
      body,
      connections: options.connections,
      warmupMs: options.warmupMs,
      durationMs: options.durationMs,
    });
    const load = process.cpuUsage(loadBefore);
    const serverMs = (await serverCpuMs(server)) - serverBefore;
    const postgres = stopPostgres();
    const chainsAfter = chainsMs();
    const chainsSpent = chainsBefore === null || chainsAfter === null ? null : chainsAfter - chainsBefore;
    // CPU and bytes span the warm-up too: per request, over everything sent in the window.
    const sent = run.requestsPerSecond * ((options.warmupMs + options.durationMs) / 1000);
    const perThousand = (ms: number) => (1000 * ms) / sent;
    const figure: RouteFigure = {
      label,
      requestsPerSecond: run.requestsPerSecond,
      p50Ms: percentile(run.ms, 50),
      p99Ms: percentile(run.ms, 99),
      serverCpuMs: perThousand(serverMs),
      loadCpuMs: perThousand((load.user + load.system) / 1000),
      postgresCpuMs: postgres.postgresMs === null ? null : perThousand(postgres.postgresMs),
      chainsCpuMs: chainPids.length === 0 || chainsSpent === null ? null : perThousand(chainsSpent),
      logBytesPerRequest: (server.stdoutBytes - bytesBefore) / sent,
      statuses: run.failures === 0 ? '200' : run.failures === run.requests ? 'non-200' : 'mixed',
    };
    if (!best || figure.requestsPerSecond > best.requestsPerSecond) best = figure;
  }
  return best!;
}

/** Bare Fastify, then Ferry at `warn` (404, a no-op route, /health), then Ferry at `info` with its stdout a pipe. */
export async function runHttpFloorBench(
  scratch: ScratchDatabase,
  options: HttpFloorOptions,
): Promise<HttpFloorFigures> {
  const bareServer = await startServer('bare', {});
  const bare = await measure('bare Fastify GET /bare', bareServer, '/bare', options, scratch).finally(() =>
    stopServer(bareServer),
  );
  const ferryEnv = { DATABASE_URL: scratch.url };
  const warn = await startServer('ferry', { ...ferryEnv, LOG_LEVEL: 'warn' });
  const notFound = await measure('Ferry 404 (warn)', warn, '/no-such-route', options, scratch);
  const noop = await measure('Ferry GET /bench/noop (warn)', warn, '/bench/noop', options, scratch);
  const health = await measure('Ferry GET /health (warn)', warn, '/health', options, scratch);
  await stopServer(warn);
  const unobserved = await startServer('ferry', { ...ferryEnv, LOG_LEVEL: 'warn', METRICS_ENABLED: 'false' });
  const noopWithoutMetrics = await measure(
    'Ferry GET /bench/noop (warn, METRICS_ENABLED=false)',
    unobserved,
    '/bench/noop',
    options,
    scratch,
  ).finally(() => stopServer(unobserved));
  const sink = await startOtlpSink();
  const tracedServer = await startServer('ferry', { ...ferryEnv, LOG_LEVEL: 'warn' }, traced(sink));
  const notFoundTraced = await measure(
    'Ferry 404 (warn, traced)',
    tracedServer,
    '/no-such-route',
    options,
    scratch,
  );
  const noopTraced = await measure(
    'Ferry GET /bench/noop (warn, traced)',
    tracedServer,
    '/bench/noop',
    options,
    scratch,
  );
  await stopServer(tracedServer);
  const sampledServer = await startServer(
    'ferry',
    { ...ferryEnv, LOG_LEVEL: 'warn' },
    traced(sink, SAMPLED_RATIO),
  );
  const notFoundSampled = await measure(
    `Ferry 404 (warn, traced, ${SAMPLED_RATIO} sampled)`,
    sampledServer,
    '/no-such-route',
    options,
    scratch,
  );
  const noopSampled = await measure(
    `Ferry GET /bench/noop (warn, traced, ${SAMPLED_RATIO} sampled)`,
    sampledServer,
    '/bench/noop',
    options,
    scratch,
  ).finally(() => stopServer(sampledServer));
  const info = await startServer('ferry', { ...ferryEnv, LOG_LEVEL: 'info' });
  const notFoundInfo = await measure(
    'Ferry 404 (info, stdout a pipe)',
    info,
    '/no-such-route',
    options,
    scratch,
  );
  const noopInfo = await measure(
    'Ferry GET /bench/noop (info, stdout a pipe)',
    info,
    '/bench/noop',
    options,
    scratch,
  );
  await stopServer(info);
  const { quote, notFoundBesideQuote, quoteTraced } = await measureQuote(scratch, options, sink).finally(() =>
    sink.close(),
  );
  return {
    bare,
    notFound,
    noop,
    health,
    notFoundInfo,
    noopInfo,
    noopWithoutMetrics,
    quote,
    notFoundBesideQuote,
    notFoundTraced,
    noopTraced,
    notFoundSampled,
    noopSampled,
    quoteTraced,
    exported: { ...sink.received },
  };
}

export async function measureQuote(
  scratch: ScratchDatabase,
  options: HttpFloorOptions,
  sink: OtlpSink,
): Promise<{ quote: RouteFigure; notFoundBesideQuote: RouteFigure; quoteTraced: RouteFigure }> {
  const chains = await startDevnets();
  const env = {
    DATABASE_URL: scratch.url,
    LOG_LEVEL: 'warn',
    DEVNET_A_RPC_URL: chains[0].rpcUrl,
    DEVNET_B_RPC_URL: chains[1].rpcUrl,
  };
  const body = JSON.stringify({
    user: DEVNET_ACCOUNTS.user.address,
    originChainId: 31337,
    destinationChainId: 31338,
    originCurrency: '0x0000000000000000000000000000000000000000',
    destinationCurrency: '0x0000000000000000000000000000000000000000',
    amount: '10000000000000000',
    tradeType: 'EXACT_INPUT',
  });
  const chainPids = chains.map((chain) => chain.pid);
  try {
    const server = await startServer('ferry', env);
    const untraced = await (async () => {
      const quote = await measure(
        'Ferry POST /quote/v2 native bridge (warn)',
        server,
        '/quote/v2',
        options,
        scratch,
        body,
        chainPids,
      );
      const notFoundBesideQuote = await measure(
        'Ferry 404 beside the devnets (warn)',
        server,
        '/no-such-route',
        options,
        scratch,
      );
      return { quote, notFoundBesideQuote };
    })().finally(() => stopServer(server));
    // Traced second, on a log grown by the first run's quotes: any drift from that counts against tracing.
    const tracedServer = await startServer('ferry', env, traced(sink));
    const quoteTraced = await measure(
      'Ferry POST /quote/v2 native bridge (warn, traced)',
      tracedServer,
      '/quote/v2',
      options,
      scratch,
      body,
      chainPids,
    ).finally(() => stopServer(tracedServer));
    return { ...untraced, quoteTraced };
  } finally {
    await Promise.all(chains.map((chain) => chain.stop()));
  }
}

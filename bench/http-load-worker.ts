import http from 'node:http';
import { parentPort } from 'node:worker_threads';

/**
 * The HTTP client of the benchmarks, in a worker thread so that its own work (sending, parsing answers) runs beside
 * the app's event loop rather than on it, as a client on another machine would. Jobs come as messages; each answer
 * is posted back once the job is done (see `http-load.ts`).
 */

export interface LatencyJob {
  readonly kind: 'latency';
  readonly baseUrl: string;
  readonly paths: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  /** Rounds over every path before measuring, then measured rounds; each round sends each path once, in order. */
  readonly warmupRounds: number;
  readonly rounds: number;
}

export interface LatencyResult {
  readonly kind: 'latency';
  /** Per path: milliseconds of each measured request, answer bytes (last), and non-200 answers. */
  readonly paths: readonly {
    path: string;
    ms: number[];
    bytes: number;
    failures: number;
    lastStatus: number;
    /** The status of the last answer that was not 200. */
    failedStatus: number;
  }[];
}

export interface ThroughputJob {
  readonly kind: 'throughput';
  readonly baseUrl: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON body sent with POST (default: GET without a body). */
  readonly body?: string;
  /** Concurrent keep-alive connections, each sending its next request as soon as the previous one is answered. */
  readonly connections: number;
  readonly warmupMs: number;
  readonly durationMs: number;
}

export interface ThroughputResult {
  readonly kind: 'throughput';
  readonly requests: number;
  readonly failures: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  /** Latency of the requests completed in the measured window. */
  readonly ms: number[];
}

export type HttpJob = LatencyJob | ThroughputJob;
export type HttpResult = LatencyResult | ThroughputResult;

interface Answer {
  readonly status: number;
  readonly bytes: number;
  readonly ms: number;
}

function get(
  agent: http.Agent,
  url: URL,
  path: string,
  headers: Readonly<Record<string, string>>,
  body?: string,
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        hostname: url.hostname,
        port: url.port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        agent,
      },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, bytes, ms: performance.now() - started }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function latency(job: LatencyJob): Promise<LatencyResult> {
  const url = new URL(job.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const results = job.paths.map((path) => ({
    path,
    ms: [] as number[],
    bytes: 0,
    failures: 0,
    lastStatus: 0,
    failedStatus: 0,
  }));
  try {
    for (let round = 0; round < job.warmupRounds + job.rounds; round += 1) {
      for (const result of results) {
        const answer = await get(agent, url, result.path, job.headers);
        result.lastStatus = answer.status;
        result.bytes = answer.bytes;
        if (answer.status !== 200) {
          result.failures += 1;
          result.failedStatus = answer.status;
        }
        if (round >= job.warmupRounds) result.ms.push(answer.ms);
      }
    }
  } finally {
    agent.destroy();
  }
  return { kind: 'latency', paths: results };
}

async function throughput(job: ThroughputJob): Promise<ThroughputResult> {
  const url = new URL(job.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.connections });
  const warmupEnds = performance.now() + job.warmupMs;
  const ends = warmupEnds + job.durationMs;
  let requests = 0;
  let failures = 0;
  const ms: number[] = [];
  const loop = async () => {
    while (performance.now() < ends) {
      const answer = await get(agent, url, job.path, job.headers, job.body);
      const at = performance.now();
      if (at < warmupEnds || at > ends) continue;
      requests += 1;
      ms.push(answer.ms);
      if (answer.status !== 200) failures += 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: job.connections }, loop));
  } finally {
    agent.destroy();
  }
  const seconds = job.durationMs / 1000;
  return { kind: 'throughput', requests, failures, seconds, requestsPerSecond: requests / seconds, ms };
}

parentPort?.on('message', (job: HttpJob) => {
  const run = job.kind === 'latency' ? latency(job) : throughput(job);
  run.then(
    (result) => parentPort?.postMessage({ ok: true, result }),
    (error: unknown) => parentPort?.postMessage({ ok: false, error: String(error) }),
  );
});

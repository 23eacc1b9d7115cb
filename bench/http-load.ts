import { Worker } from 'node:worker_threads';
import type {
  HttpJob,
  HttpResult,
  LatencyJob,
  LatencyResult,
  ThroughputJob,
  ThroughputResult,
} from './http-load-worker.js';

/** Runs one job of `http-load-worker.ts` in a fresh worker thread and resolves to its result. */
function runJob<R extends HttpResult>(job: HttpJob): Promise<R> {
  const worker = new Worker(new URL('./http-load-worker.js', import.meta.url));
  return new Promise<R>((resolve, reject) => {
    worker.once('message', (message: { ok: true; result: R } | { ok: false; error: string }) => {
      void worker.terminate();
      if (message.ok) resolve(message.result);
      else reject(new Error(`HTTP load worker: ${message.error}`));
    });
    worker.once('error', (error) => {
      void worker.terminate();
      reject(error);
    });
    worker.postMessage(job);
  });
}

/** Sequential requests over one keep-alive connection, paths interleaved round by round. */
export const measureLatency = (job: Omit<LatencyJob, 'kind'>): Promise<LatencyResult> =>
  runJob<LatencyResult>({ kind: 'latency', ...job });

/** Requests per second of one path over concurrent keep-alive connections, for a fixed time. */
export const measureThroughput = (job: Omit<ThroughputJob, 'kind'>): Promise<ThroughputResult> =>
  runJob<ThroughputResult>({ kind: 'throughput', ...job });

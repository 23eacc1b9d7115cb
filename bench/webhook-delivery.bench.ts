import 'reflect-metadata';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { ApiKeysService } from '../src/api-keys/api-keys.service.js';
import { createApp } from '../src/bootstrap/create-app.js';
import { loadAppConfig } from '../src/config/app-config.js';
import { ExecuteRequestCommand } from '../src/requests/commands/execute-request.command.js';
import { sampleLifecycle, sampleQuote } from '../src/requests/domain/sample-requests.js';
import { benchScale, createScratchDatabase } from './support.js';

/**
 * The Webhooks issue's figures, in one process against a scratch database and a keep-alive receiver on loopback:
 * (a) deliveries/s of the dispatchers draining a queue of outbox rows, (b) p50/p99 from appending a status change to
 * its first delivery attempt reaching the receiver. `node dist/bench/webhook-delivery.bench.js` (after a build).
 */

interface Arrival {
  readonly requestId: string;
  readonly status: string;
  readonly at: number;
}

async function receiver(arrivals: Arrival[]): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        data: { requestId: string; status: string };
      };
      arrivals.push({ requestId: data.requestId, status: data.status, at });
      response.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks` };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

async function main(): Promise<void> {
  const scale = benchScale();
  const scratch = await createScratchDatabase(4);
  const arrivals: Arrival[] = [];
  const { server, url } = await receiver(arrivals);
  const config = loadAppConfig({
    ENVIRONMENT: 'test',
    LOG_LEVEL: 'fatal',
    DATABASE_URL: scratch.url,
    API_KEY_ENCRYPTION_KEY: 'cd'.repeat(32),
    WEBHOOK_BATCH_SIZE: '200',
    WEBHOOK_POLL_INTERVAL_MS: '20',
    PROJECTION_POLL_INTERVAL_MS: '20',
    PG_POOL_SIZE: '16',
  });
  const app = await createApp(config, { logger: false });
  await app.init();
  try {
    const key = await app.get(ApiKeysService).create({ label: 'bench', webhookUrl: url });
    const db = scratch.db;

    // (a) Throughput: N queued deliveries (outbox rows written directly), drained by the dispatchers.
    const count = Math.round(10_000 * scale);
    const body = JSON.stringify({
      event: 'request.status.updated',
      timestamp: 0,
      data: { requestId: '0xbench', status: 'success' },
    });
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, api_key_id, request_id, sequence, status, body,
         event_created_at, next_attempt_at)
       SELECT gen_random_uuid(), 'whk_bench_' || n, 'bench-' || n, $1, 'bench-request-' || n, 0, 'success', $2, now(),
              now() + interval '1 hour'
         FROM generate_series(1, $3) AS n`,
      [key.id, body, count],
    );
    arrivals.length = 0;
    const started = performance.now();
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now()`);
    for (;;) {
      const { rows } = await db.query<{ n: bigint }>(
        `SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'delivered'`,
      );
      if (Number(rows[0].n) >= count) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const throughput = count / seconds;

    // (b) Latency: status changes appended through the command bus at a steady rate, each timed to its arrival.
    arrivals.length = 0;
    const appended = new Map<string, number>();
    const requests = Math.round(200 * scale);
    const commands = app.get(CommandBus);
    const runs: Promise<void>[] = [];
    for (let i = 0; i < requests; i += 1) {
      const quote = sampleQuote(100_000 + i, { apiKeyId: key.id });
      const [quoted, detect] = sampleLifecycle(quote, 100_000 + i);
      runs.push(
        (async () => {
          await commands.execute(new ExecuteRequestCommand(quote.requestId, quoted));
          const before = performance.now();
          await commands.execute(new ExecuteRequestCommand(quote.requestId, detect));
          appended.set(quote.requestId, before);
        })(),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all(runs);
    const deadline = Date.now() + 30_000;
    while (arrivals.length < requests && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const latencies = arrivals
      .filter((a) => appended.has(a.requestId))
      .map((a) => a.at - appended.get(a.requestId)!);

    const line = (name: string, value: string, target: string, pass: boolean) =>
      process.stdout.write(
        `${name.padEnd(44)} ${value.padStart(18)}   ${target.padEnd(16)} ${pass ? 'PASS' : 'MISS'}\n`,
      );
    process.stdout.write(
      `\nWebhooks (scale ${scale}; ${new Date().toISOString()}; run ${randomUUID().slice(0, 8)})\n`,
    );
    line('Dispatch throughput (deliveries/s)', throughput.toFixed(0), '>= 1,000', throughput >= 1000);
    line(
      `Append -> first attempt p50 (ms, n=${latencies.length})`,
      percentile(latencies, 50).toFixed(1),
      '',
      true,
    );
    line(
      'Append -> first attempt p99 (ms)',
      percentile(latencies, 99).toFixed(1),
      '< 500',
      percentile(latencies, 99) < 500,
    );
    process.stdout.write(
      `  ${count} deliveries in ${seconds.toFixed(2)} s; ${latencies.length}/${requests} status changes timed\n`,
    );
  } finally {
    await app.close();
    server.closeAllConnections();
    server.close();
    await scratch.drop();
  }
}

void main();

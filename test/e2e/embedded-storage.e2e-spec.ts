import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainClients, settlementEnv, waitFor } from '../support/chain-clients.js';
import { type Devnet, startDevnets } from '../support/devnet.js';
import { freePort, runBuiltCli, type Spawned, spawnNode } from '../support/process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import {
  deposit,
  depositNativeFor,
  ETH,
  ethQuoteBody,
  freshRecipient,
  type Quote,
} from '../integration/settlement/settlement-support.js';

const MAIN = 'dist/src/main.js';
const CLAIMER = privateKeyToAccount(`0x${'b7'.repeat(32)}`);

/**
 * `npm start` on embedded storage (no DATABASE_URL: PGlite in a DATA_DIR on disk), as a real process, with the
 * operator CLI run against the same directory while the server is stopped, and restarts (SIGTERM and kill -9) on it.
 * Every flow is bounded by a timeout, so a PGlite freeze (a query queued behind the process's own open transaction)
 * fails here instead of hanging.
 */
describe('embedded storage (PGlite in DATA_DIR): the real process, the CLI, restarts', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let receiver: WebhookReceiver;
  let dataDir: string;
  let ferry: { process: Spawned; url: string } | null = null;
  let apiKey: string;
  let redelivered = '';
  let seed = 0xc0;
  const settled: { id: Hex; status: string; recipient: Address; currency: string; chainId: number }[] = [];

  const env = (extra: Record<string, string> = {}) => ({
    ENVIRONMENT: 'test',
    LOG_LEVEL: 'error',
    DATA_DIR: dataDir,
    ...settlementEnv(a, b, { SOLVER_LEASE_MS: '2000', WEBHOOK_RETRY_BASE_MS: '200' }),
    ...extra,
  });
  const cli = async (...args: string[]) => {
    const run = await Promise.race([
      runBuiltCli(args, { ...env(), DATABASE_URL: '' }),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`cli ${args.join(' ')} still running after 60 s`)), 60_000),
      ),
    ]);
    return run;
  };
  const start = async (extra: Record<string, string> = {}) => {
    const port = await freePort();
    const process = spawnNode(MAIN, [], { ...env(extra), PORT: String(port) });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(
      async () =>
        (await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).catch(() => null))?.ok,
      `Ferry on ${port} (${process.stderr().slice(-800)})`,
      60_000,
    );
    ferry = { process, url };
    return ferry;
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (!ferry) return;
    ferry.process.child.kill(signal);
    const exited = await Promise.race([
      ferry.process.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000)),
    ]);
    if (exited === 'still running') ferry.process.child.kill('SIGKILL');
    expect({ exited, stderr: ferry.process.stderr().slice(-800) }).toMatchObject({
      exited: signal === 'SIGKILL' ? 'SIGKILL' : expect.not.stringMatching(/still running/),
    });
    ferry = null;
  };
  const http = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${ferry!.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { code: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const statusOf = async (id: string) =>
    (await http('GET', `/intents/status/v3?requestId=${id}`)).body.status as string;
  const quote = async (body: Record<string, unknown>) => {
    const { code, body: quoted } = await http('POST', '/quote/v2', body, { 'x-api-key': apiKey });
    expect({ code, quoted }).toMatchObject({ code: 200 });
    return quoted as unknown as Quote;
  };

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    receiver = await new WebhookReceiver().start();
    dataDir = mkdtempSync(join(tmpdir(), 'ferry-embedded-'));
  }, 120_000);
  afterAll(async () => {
    if (ferry) ferry.process.child.kill('SIGKILL');
    await receiver?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('the CLI prepares a fresh data dir: db:migrate, then api-keys:create with a webhook endpoint', async () => {
    const migrated = await cli('db:migrate');
    expect(migrated).toMatchObject({ code: 0 });
    const created = await cli('api-keys:create', '--label', 'embedded', '--webhook-url', receiver.url);
    expect(created).toMatchObject({ code: 0 });
    apiKey = /key:\s+(\S+)/.exec(created.stdout)![1];
  });

  it('serves on that dir: a bridge succeeds, a short deposit is refunded, a deposit address fills, webhooks arrive', async () => {
    await start();
    // A native bridge with an app fee to CLAIMER.
    const recipient = freshRecipient(seed++);
    const bridged = await quote({
      ...ethQuoteBody(a, b, a.accounts.user.address, recipient),
      appFees: [{ recipient: CLAIMER.address, fee: '100' }],
    });
    await deposit(clients, a, bridged);
    await waitFor(async () => (await statusOf(bridged.protocol.v2.orderId)) === 'success', 'bridge success');
    settled.push({
      id: bridged.protocol.v2.orderId,
      status: 'success',
      recipient,
      currency: ETH,
      chainId: b.chainId,
    });

    // A deposit short of the quote: failure, refunded on the origin chain.
    const shortQuote = await quote(ethQuoteBody(a, b, a.accounts.user.address, freshRecipient(seed++)));
    const short = BigInt(shortQuote.details.currencyIn.amount) / 2n;
    await depositNativeFor(clients, a, shortQuote.protocol.v2.orderId, short);
    await waitFor(async () => (await statusOf(shortQuote.protocol.v2.orderId)) === 'refund', 'refund');
    settled.push({
      id: shortQuote.protocol.v2.orderId,
      status: 'refund',
      recipient: a.accounts.user.address,
      currency: ETH,
      chainId: a.chainId,
    });

    // A deposit address: a plain transfer to it is swept and filled.
    const addressRecipient = freshRecipient(seed++);
    const viaAddress = await quote({
      ...ethQuoteBody(a, b, a.accounts.user.address, addressRecipient),
      useDepositAddress: true,
    });
    await deposit(clients, a, viaAddress);
    await waitFor(
      async () => (await statusOf(viaAddress.protocol.v2.orderId)) === 'success',
      'address success',
    );
    settled.push({
      id: viaAddress.protocol.v2.orderId,
      status: 'success',
      recipient: addressRecipient,
      currency: ETH,
      chainId: b.chainId,
    });

    // Webhooks: each request's final status is delivered.
    await waitFor(
      () =>
        Promise.resolve(
          settled.every(({ id, status }) =>
            receiver.received.some((hook) => hook.body.includes(id) && hook.body.includes(`"${status}"`)),
          ),
        ),
      'webhooks of every final status',
    );
  }, 180_000);

  it('credits the app fee and pays a signed claim', async () => {
    const balances = async () =>
      (await http('GET', `/app-fees/${CLAIMER.address}/balances`)).body as {
        balances: { amount: string }[];
      };
    await waitFor(async () => BigInt((await balances()).balances[0]?.amount ?? '0') > 0n, 'app-fee credit');
    const opened = await http('POST', `/app-fees/${CLAIMER.address}/claim`, {
      chainId: b.chainId,
      currency: b.deployment.usdc,
    });
    expect(opened.code).toBe(200);
    const claimId = (opened.body.steps as { requestId: Hex }[])[0].requestId;
    const signature = await CLAIMER.signMessage({ message: { raw: claimId } });
    const paid = await http('POST', `/execute/permits?signature=${signature}`, {
      kind: 'claim',
      requestId: claimId,
    });
    expect(paid).toMatchObject({ code: 200, body: { status: 'paid' } });
    const usdc = await clients.balanceOf(b.chainId, b.deployment.usdc, CLAIMER.address);
    expect(usdc).toBeGreaterThan(0n);
    settled.push({
      id: claimId,
      status: 'paid',
      recipient: CLAIMER.address,
      currency: b.deployment.usdc,
      chainId: b.chainId,
    });
  }, 120_000);

  it('stopped, the CLI reads and changes the same data dir', async () => {
    await stop();
    const [bridge, refunded] = settled;
    for (const args of [
      ['db:status'],
      ['projections:status', '--json'],
      ['requests:replay', bridge.id],
      ['requests:replay', refunded.id],
      ['events:replay', `request-${bridge.id.toLowerCase()}`],
      ['webhooks:deliveries', '--json'],
      ['solver:jobs', '--json'],
      ['api-keys:list', '--json'],
      ['projections:audit', 'requests-v3'],
      ['projections:audit', 'app-fee-balances'],
    ]) {
      const run = await cli(...args);
      expect({ args, code: run.code, stderr: run.stderr.slice(-500) }).toMatchObject({ code: 0 });
    }
    const jobs = JSON.parse((await cli('solver:jobs', '--json')).stdout) as { state: string }[];
    expect(jobs.filter((job) => job.state !== 'done')).toEqual([]);
    const rebuilt = await cli('projections:rebuild', 'requests-v3', 'requests-v2');
    expect({ code: rebuilt.code, stderr: rebuilt.stderr.slice(-500) }).toMatchObject({ code: 0 });
    // A delivered webhook queued again from the CLI is sent by the server once it is back.
    const deliveries = JSON.parse(
      (await cli('webhooks:deliveries', '--json', '--state', 'delivered', '--request', bridge.id)).stdout,
    ) as { webhookId: string }[];
    expect(deliveries.length).toBeGreaterThan(0);
    redelivered = deliveries[0].webhookId;
    const queued = await cli('webhooks:redeliver', redelivered);
    expect({ code: queued.code, stderr: queued.stderr }).toMatchObject({ code: 0 });
  }, 180_000);

  it('restarted on the same dir: nothing lost, nothing paid twice', async () => {
    const balances = await Promise.all(
      settled.map(({ chainId, currency, recipient }) => clients.balanceOf(chainId, currency, recipient)),
    );
    const sentBefore = receiver.received.filter(
      (hook) => hook.headers['x-webhook-id'] === redelivered,
    ).length;
    await start();
    await waitFor(
      () =>
        Promise.resolve(
          receiver.received.filter((hook) => hook.headers['x-webhook-id'] === redelivered).length >
            sentBefore,
        ),
      'the redelivery queued by the CLI',
    );
    for (const { id, status } of settled.filter((entry) => entry.status !== 'paid')) {
      expect(await statusOf(id)).toBe(status);
    }
    const claims = (await http('GET', `/app-fees/${CLAIMER.address}/claims`)).body.claims as {
      status: string;
    }[];
    expect(claims.map((claim) => claim.status)).toContain('paid');
    // Give the solver, the watcher and the payout resumer a few rounds: they must find nothing to do.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(
      await Promise.all(
        settled.map(({ chainId, currency, recipient }) => clients.balanceOf(chainId, currency, recipient)),
      ),
    ).toEqual(balances);
    // A new bridge still works after the restart.
    const recipient = freshRecipient(seed++);
    const again = await quote(ethQuoteBody(a, b, a.accounts.user.address, recipient));
    await deposit(clients, a, again);
    await waitFor(
      async () => (await statusOf(again.protocol.v2.orderId)) === 'success',
      'success after restart',
    );
  }, 180_000);

  it('killed (-9) right after a fill is broadcast, restarted on the same dir: paid exactly once', async () => {
    await stop();
    await start({ FERRY_FAILPOINTS: 'fill:after-broadcast' });
    const recipient = freshRecipient(seed++);
    const killed = await quote(ethQuoteBody(a, b, a.accounts.user.address, recipient));
    await deposit(clients, a, killed);
    const exited = await Promise.race([
      ferry!.process.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 30_000)),
    ]);
    expect(exited).toBe('SIGKILL');
    ferry = null;
    await start();
    await waitFor(
      async () => (await statusOf(killed.protocol.v2.orderId)) === 'success',
      'success after kill -9',
    );
    expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBe(
      BigInt(killed.details.currencyOut.amount),
    );
    await stop();
    const replay = await cli('requests:replay', killed.protocol.v2.orderId);
    expect(replay.code).toBe(0);
    expect(replay.stdout.match(/FillSucceeded/g)).toHaveLength(1);
  }, 240_000);
});

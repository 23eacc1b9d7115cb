import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { checkWebhookTarget, hostResolver } from '../../../src/webhooks/webhook-target.js';
import { FakeNameserver } from '../../support/fake-nameserver.js';

const strict = { allowInsecureLocal: false };
const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** One job on libuv's thread pool (as fs and crypto use it), timed. */
async function threadPoolJobMs(): Promise<number> {
  const started = performance.now();
  await promisify(pbkdf2)('password', 'salt', 1_000, 32, 'sha256');
  return performance.now() - started;
}

describe(hostResolver.name, () => {
  let nameserver: FakeNameserver;
  beforeAll(async () => {
    nameserver = await new FakeNameserver({
      'hooks.ferry.test': { a: [PUBLIC_V4], aaaa: [PUBLIC_V6] },
      'mixed.ferry.test': { a: [PUBLIC_V4, '10.0.0.5'] },
      'v6only.ferry.test': { aaaa: [PUBLIC_V6] },
      'rebind.ferry.test': { a: [PUBLIC_V4], aaaa: ['::ffff:7f00:1'] }, // ::ffff:127.0.0.1
      'gone.ferry.test': 'nxdomain',
      ...Object.fromEntries(
        Array.from({ length: 16 }, (_, i) => [`silent-${i}.ferry.test`, 'silent' as const]),
      ),
    }).start();
  });
  afterAll(async () => {
    await nameserver?.stop();
  });
  const sut = (timeoutMs = 2_000) => hostResolver({ timeoutMs, servers: [nameserver.address] });

  it('asks the nameserver for both families and returns every address', async () => {
    expect(await sut()('hooks.ferry.test')).toEqual([PUBLIC_V4, PUBLIC_V6]);
    expect(await sut()('HOOKS.ferry.test.')).toEqual([PUBLIC_V4, PUBLIC_V6]);
    expect(await sut()('v6only.ferry.test')).toEqual([PUBLIC_V6]);
  });

  it('keeps the target checks: every address checked, the connection pinned to a checked one', async () => {
    expect(await checkWebhookTarget('https://hooks.ferry.test/ferry', strict, sut())).toMatchObject({
      ok: true,
      addresses: [PUBLIC_V4, PUBLIC_V6],
    });
    expect(await checkWebhookTarget('https://mixed.ferry.test/', strict, sut())).toEqual({
      ok: false,
      reason: 'mixed.ferry.test resolves to 10.0.0.5, which is a private address (10.0.0.0/8)',
    });
    expect(await checkWebhookTarget('https://rebind.ferry.test/', strict, sut())).toMatchObject({
      ok: false,
      reason: expect.stringContaining(
        'rebind.ferry.test resolves to ::ffff:127.0.0.1, which is a loopback address',
      ),
    });
    expect(await checkWebhookTarget('https://gone.ferry.test/', strict, sut())).toEqual({
      ok: false,
      reason: 'cannot resolve gone.ferry.test: ENOTFOUND',
    });
  });

  it('answers localhost names with loopback without asking any nameserver (RFC 6761)', async () => {
    const before = nameserver.queries.size;
    expect(await sut()('localhost')).toEqual(['127.0.0.1', '::1']);
    expect(await sut()('app.localhost')).toEqual(['127.0.0.1', '::1']);
    expect(nameserver.queries.size).toBe(before);
    expect(
      await checkWebhookTarget('https://localhost/hook', { allowInsecureLocal: true }, sut()),
    ).toMatchObject({
      ok: true,
      addresses: ['127.0.0.1', '::1'],
    });
  });

  it("gives up on a nameserver that never answers after its timeout, without holding Node's thread pool", async () => {
    const baseline = await threadPoolJobMs();
    const started = performance.now();
    // Four times the pool's four threads: with dns.lookup, every thread would wait on the silent nameserver.
    const lookups = Array.from({ length: 16 }, (_, i) =>
      sut(1_500)(`silent-${i}.ferry.test`).then(
        () => ({ error: null, ms: performance.now() - started }),
        (error: Error) => ({ error, ms: performance.now() - started }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const jobs = await Promise.all(Array.from({ length: 4 }, () => threadPoolJobMs()));
    expect(Math.max(...jobs)).toBeLessThan(Math.max(500, baseline * 20));
    expect(performance.now() - started).toBeLessThan(1_400);

    const outcomes = await Promise.all(lookups);
    for (const outcome of outcomes) {
      expect(outcome.error?.message).toMatch(/timed out after 1500 ms|ETIMEOUT/);
      expect(outcome.ms).toBeGreaterThanOrEqual(1_400);
      expect(outcome.ms).toBeLessThan(3_000);
    }
    expect(nameserver.queries.get('silent-0.ferry.test')).toBeGreaterThanOrEqual(1);
  });
});

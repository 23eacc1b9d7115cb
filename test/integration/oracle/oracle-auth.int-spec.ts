import { type Hex } from 'viem';
import { captureLogs, type RunningOracle, startOracle } from '../../support/oracle.js';
import { freePort } from '../../support/process.js';

const OPS_KEY = 'k-ops-3b9e2d71';
const PEER_KEY = 'k-peer-a84c05f6';
const TX = `0x${'ee'.repeat(32)}` as Hex;
const ORDER = `0x${'0a'.repeat(32)}` as Hex;
const ADDRESS = `0x${'c3'.repeat(20)}`;
const PAYMENT = {
  chainId: 31337,
  transactionId: TX,
  orderId: ORDER,
  recipient: ADDRESS,
  currency: ADDRESS,
  minimumAmount: '1',
};

/** Every protected route with a valid body: past the guard, each answers something other than 401. */
const PROTECTED: readonly { method: 'GET' | 'POST'; path: string; body?: object }[] = [
  { method: 'GET', path: '/chains/v1' },
  {
    method: 'POST',
    path: '/attestations/depository-deposits/v1',
    body: { chainId: 31337, transactionId: TX },
  },
  {
    method: 'POST',
    path: '/attestations/depository-withdrawals/v1',
    body: { chainId: 31337, transactionId: TX },
  },
  { method: 'POST', path: '/attestations/solver-fills/v1', body: PAYMENT },
  { method: 'POST', path: '/attestations/solver-refunds/v1', body: PAYMENT },
  {
    method: 'POST',
    path: '/attestations/withdrawal-initiation/v1',
    body: { chainId: 31337, transactionId: TX },
  },
  {
    method: 'POST',
    path: '/attestations/withdrawal-initiated/v1',
    body: { chainId: 31337, transactionId: TX },
  },
];

async function call(
  oracle: RunningOracle,
  route: (typeof PROTECTED)[number],
  key?: string,
  body = route.body,
) {
  const response = await fetch(`${oracle.url}${route.path}`, {
    method: route.method,
    headers: {
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(key !== undefined ? { 'x-api-key': key } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * API_KEYS on the oracle's routes, over real HTTP: every route but /lives/v1 and /documentation needs a listed key;
 * the key's label is logged, never the key; without API_KEYS everything is open. The devnet RPCs point at a closed
 * port: nothing here needs a chain.
 */
describe('oracle API keys', () => {
  const logs = captureLogs('debug');
  let sut: RunningOracle;
  let open: RunningOracle;

  beforeAll(async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const rpcs = { DEVNET_A_RPC_URL: closed, DEVNET_B_RPC_URL: closed };
    sut = await startOracle({
      logger: logs.logger,
      env: { ...rpcs, API_KEYS: ` ${OPS_KEY}:operations ; ${PEER_KEY}:peer operator B;` },
    });
    open = await startOracle({ logger: logs.logger, env: rpcs });
  });
  afterAll(async () => {
    await sut?.stop();
    await open?.stop();
  });

  it.each(PROTECTED.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: 401 without a key, with a wrong one, with a near miss; served with either listed key',
    async (_name, route) => {
      for (const key of [
        undefined,
        '',
        'k-wrong',
        OPS_KEY.toUpperCase(),
        OPS_KEY.slice(0, -1),
        `${OPS_KEY}x`,
      ]) {
        const answer = await call(sut, route, key);
        expect({ key, ...answer }).toEqual({
          key,
          status: 401,
          body: { message: 'This route needs a valid x-api-key', errorCode: 'UNAUTHORIZED', statusCode: 401 },
        });
      }
      for (const key of [OPS_KEY, PEER_KEY]) {
        const answer = await call(sut, route, key);
        expect(answer.status).not.toBe(401);
        expect(answer.body.errorCode).not.toBe('UNAUTHORIZED');
      }
    },
  );

  it('refuses a missing key before validating the body: no hint about the input', async () => {
    const answer = await call(sut, PROTECTED[1], undefined, { transactionId: 'nonsense' });
    expect(answer.status).toBe(401);
    const served = await call(sut, PROTECTED[1], OPS_KEY, { transactionId: 'nonsense' });
    expect(served.body.errorCode).toBe('INVALID_INPUT');
  });

  it.each(['/lives/v1', '/documentation', '/documentation/json'])(
    '%s is reachable without a key (and with a wrong one)',
    async (path) => {
      for (const headers of [{}, { 'x-api-key': 'k-wrong' }] as Record<string, string>[]) {
        const response = await fetch(`${sut.url}${path}`, { headers });
        expect(response.status).toBe(200);
        if (path === '/lives/v1') expect(await response.json()).toEqual({ status: 'ok' });
      }
    },
  );

  it('documents every route under the apiKey scheme', async () => {
    const document = (await (await fetch(`${sut.url}/documentation/json`)).json()) as {
      paths: Record<string, unknown>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(Object.keys(document.paths).sort()).toEqual(
      ['/lives/v1', ...PROTECTED.map((route) => route.path)].sort(),
    );
    expect(document.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      name: 'x-api-key',
      in: 'header',
    });
  });

  it('serves every route without a key when API_KEYS is unset', async () => {
    for (const route of PROTECTED) expect((await call(open, route)).status).not.toBe(401);
    const chains = await call(open, PROTECTED[0]);
    expect(chains.body.chains).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 31337, vmType: 'evm-vm', attestable: true }),
        expect.objectContaining({ id: 999, vmType: 'evm-vm', attestable: false }),
        expect.objectContaining({ id: 792703809, vmType: 'svm-vm', attestable: false }),
      ]),
    );
  });

  it('logs the label of the key used and whether a refused request gave one, never a key', async () => {
    await call(sut, PROTECTED[0], PEER_KEY);
    await call(sut, PROTECTED[0], 'k-wrong-logged');
    expect(logs.find('oracle caller')).toContainEqual(expect.objectContaining({ caller: 'peer operator B' }));
    expect(logs.find('oracle request refused')).toContainEqual(
      expect.objectContaining({ url: '/chains/v1', keyGiven: true }),
    );
    for (const key of [OPS_KEY, PEER_KEY, 'k-wrong-logged']) expect(logs.text()).not.toContain(key);
  });
});

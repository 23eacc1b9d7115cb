import { generateApiKey } from '../../../../src/api-keys/api-key-crypto.js';
import { JsonLogger } from '../../../../src/common/logging/json-logger.js';
import { createLogger } from '../../../../src/common/logging/logger.js';
import { secretsOf } from '../../../../src/common/logging/redact.js';
import { withRequestId } from '../../../../src/common/logging/request-context.js';

const PRIVATE_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const TX_HASH = '0x8a2f5f1e6c3b4d7a9e0f1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60';
/** A key as Ferry makes them; its display prefix (`fk_` + 7) is kept in lines, as in key listings. */
const API_KEY = generateApiKey();
const SHOWN = `${API_KEY.slice(0, 10)}…[redacted]`;

/** The real logger writing to a captured stream; every line parsed, and the raw text to search for secrets. */
function capture(secrets: readonly string[] = []) {
  const raw: string[] = [];
  const logger = createLogger({ level: 'debug', secrets, stream: { write: (line) => raw.push(line) } });
  return {
    logger,
    text: () => raw.join(''),
    lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('log redaction', () => {
  it('replaces the values of secret-named keys at any depth', () => {
    const sut = capture();
    sut.logger.info(
      {
        apiKey: 's-1',
        headers: { 'x-api-key': 's-2', authorization: 'Bearer s-3', 'x-admin-token': 's-4', cookie: 's-5' },
        config: {
          adminApiToken: 's-6',
          solverPrivateKey: 's-7',
          ECDSA_PRIVATE_KEY: 's-8',
          secret: 's-9',
          password: 's-10',
          token: 's-11',
          mnemonic: 's-12',
          AWS_SECRET_ACCESS_KEY: 's-13',
          nested: [{ privateKey: 's-14', encryptionKey: 's-15' }],
        },
        adminToken: 's-16',
        apiKeyId: 'kept-1',
        keyPrefix: 'kept-2',
        metricsToken: null,
      },
      'configured',
    );
    for (let n = 1; n <= 16; n += 1) expect(sut.text()).not.toMatch(new RegExp(`"s-${n}"`));
    const [line] = sut.lines();
    expect(line).toMatchObject({
      level: 'info',
      msg: 'configured',
      apiKey: '[redacted]',
      apiKeyId: 'kept-1',
      keyPrefix: 'kept-2',
      metricsToken: null,
    });
    expect((line.headers as Record<string, unknown>)['x-api-key']).toBe('[redacted]');
  });

  it('masks API keys and private keys inside messages, and keeps transaction hashes', () => {
    const sut = capture();
    sut.logger.warn(`caller used ${API_KEY} for ${TX_HASH}`);
    sut.logger.warn({ url: `/quote?apiKey=${API_KEY}` }, `ECDSA_PRIVATE_KEY=${PRIVATE_KEY} is invalid`);
    sut.logger.warn(`pasted ${PRIVATE_KEY.slice(2)} as the key`);
    const [first, second, third] = sut.lines();
    expect(first.msg).toBe(`caller used ${SHOWN} for ${TX_HASH}`);
    expect(second).toMatchObject({
      msg: 'ECDSA_PRIVATE_KEY=[redacted] is invalid',
      url: `/quote?apiKey=${SHOWN}`,
    });
    expect(third.msg).toBe('pasted [redacted] as the key');
    expect(sut.text()).not.toContain(PRIVATE_KEY.slice(2));
    expect(sut.text()).not.toContain(API_KEY);
  });

  it("masks the process's own secrets wherever they appear, errors' messages and stacks included", () => {
    const config = { chainRuntime: { solverPrivateKey: PRIVATE_KEY }, adminApiToken: 'a'.repeat(40) };
    const sut = capture(secretsOf(config));
    sut.logger.error(new Error(`cannot sign with ${PRIVATE_KEY}`));
    sut.logger.info({ err: new Error(`token ${'a'.repeat(40)} refused`) }, 'upstream');
    sut.logger.info(`account of ${PRIVATE_KEY.toUpperCase().replace('0X', '0x')}`);
    expect(sut.text()).not.toContain(PRIVATE_KEY.slice(2));
    expect(sut.text()).not.toContain(PRIVATE_KEY.slice(2).toUpperCase());
    expect(sut.text()).not.toContain('a'.repeat(40));
    const [first, second] = sut.lines();
    expect(first).toMatchObject({ level: 'error', msg: 'cannot sign with [redacted]' });
    expect(first.err).toMatchObject({ type: 'Error', message: 'cannot sign with [redacted]' });
    expect(second).toMatchObject({ msg: 'upstream', err: { message: 'token [redacted] refused' } });
  });

  it("masks the keys inside the configuration's URLs (RPC providers, databases) wherever they appear", () => {
    const alchemy = 'Zx9k-3LqR7wVb2NcY8hT5mJ1pFd4sGe6';
    const infura = '0f3c9a1b7e2d4c6f8a0b1c2d3e4f5a6b';
    const config = {
      database: { kind: 'postgres', url: 'postgres://ferry:s3cret-pw@db.internal:5432/ferry' },
      chains: [
        { id: 1, rpcUrl: `https://eth-mainnet.g.alchemy.com/v2/${alchemy}` },
        { id: 10, rpcUrl: `https://optimism.example.com/rpc?apikey=${infura}&network=op` },
        { id: 31337, rpcUrl: 'http://127.0.0.1:8545' },
      ],
    };
    const sut = capture(secretsOf(config));
    // As viem words a failed call, and as pg and undici word theirs.
    sut.logger.warn(
      { err: new Error(`HTTP request failed.\n\nURL: https://eth-mainnet.g.alchemy.com/v2/${alchemy}`) },
      'rpc',
    );
    sut.logger.warn(`fetch https://optimism.example.com/rpc?apikey=${infura}&network=op failed`);
    sut.logger.error(`cannot connect to postgres://ferry:s3cret-pw@db.internal:5432/ferry`);
    sut.logger.error(`cannot connect to esdb://admin:changeit@esdb.internal:2113?tls=false`);
    expect(sut.text()).not.toContain(alchemy);
    expect(sut.text()).not.toContain(infura);
    expect(sut.text()).not.toContain('s3cret-pw');
    expect(sut.text()).not.toContain('changeit');
    const lines = sut.lines();
    // What an operator needs to tell the calls apart stays: the provider's host, the network, the user.
    expect(lines[0].err).toMatchObject({
      message: 'HTTP request failed.\n\nURL: https://eth-mainnet.g.alchemy.com/v2/[redacted]',
    });
    expect(lines[1].msg).toBe('fetch https://optimism.example.com/rpc?apikey=[redacted]&network=op failed');
    expect(lines[2].msg).toBe('cannot connect to postgres://ferry:[redacted]@db.internal:5432/ferry');
    expect(lines[3].msg).toBe('cannot connect to esdb://admin:[redacted]@esdb.internal:2113?tls=false');
    // A local devnet's URL holds no secret and is left whole.
    expect(secretsOf(config).some((secret) => secret.includes('8545'))).toBe(false);
  });

  it('adds the request id to lines written inside a request, and none outside', () => {
    const sut = capture();
    withRequestId('req-7', () => sut.logger.info('inside'));
    sut.logger.info('outside');
    withRequestId('req-7', () => sut.logger.info({ reqId: 'explicit' }, 'explicit id'));
    const [inside, outside, explicit] = sut.lines();
    expect(inside.reqId).toBe('req-7');
    expect('reqId' in outside).toBe(false);
    expect(explicit.reqId).toBe('explicit');
    // One key, not two, when the line names the id itself.
    expect(
      sut
        .text()
        .split('\n')[2]
        .match(/"reqId"/g),
    ).toHaveLength(1);
  });
});

describe(JsonLogger.name, () => {
  it("writes Nest's lines through the same logger, in the same shape", async () => {
    const sut = capture();
    const nest = new JsonLogger(sut.logger);
    await withRequestId('req-9', async () => {
      await Promise.resolve();
      nest.log('quote priced', 'Quotes');
    });
    nest.error({ msg: 'failed', apiKey: API_KEY }, 'Runner');
    nest.verbose('detail');
    const [priced, failed, detail] = sut.lines();
    expect(Object.keys(priced)).toEqual(['level', 'time', 'reqId', 'context', 'msg']);
    expect(priced).toMatchObject({ level: 'info', reqId: 'req-9', context: 'Quotes', msg: 'quote priced' });
    expect(priced.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(failed).toMatchObject({ level: 'error', context: 'Runner', msg: 'failed', apiKey: '[redacted]' });
    expect(detail).toMatchObject({ level: 'debug', msg: 'detail' });
  });
});

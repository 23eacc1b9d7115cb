import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CommandBus } from '@nestjs/cqrs';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { loadOracleConfig } from '../../../src/oracle/config/oracle-config.js';
import { createOracleApp } from '../../../src/oracle/create-oracle-app.js';
import { digestOf, messageIdOf } from '../../../src/oracle/messages/oracle-messages.js';
import { RawKeySigner } from '../../../src/oracle/signer/oracle-signer.js';
import { ExecuteRequestCommand } from '../../../src/requests/commands/execute-request.command.js';
import type { OracleAttestedData } from '../../../src/requests/domain/request-events.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestStatus,
  settlementEnv,
  waitFor,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { freePort, runBuiltCli } from '../../support/process.js';
import {
  deposit,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  type Quote,
} from '../settlement/settlement-support.js';

/** Hardhat accounts #7 and #8: the two oracle signers of these tests (public test keys). */
const SIGNER_7 = '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356' as Hex;
const SIGNER_8 = '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97' as Hex;
const address = (key: Hex) => privateKeyToAccount(key).address;

/**
 * Ferry and its oracles on two real local chains: confirmed deposits and fills are attested and recorded on the
 * request with their signatures; `requests:verify` checks them against the signer set; with a quorum, the solver
 * pays nothing before enough independent signers attested the deposit.
 */
describe('Ferry records oracle attestations and fills only on a quorum', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  const oracles: NestFastifyApplication[] = [];

  /** A standalone oracle instance on `port`, reading the same devnets. */
  const startOracle = async (key: Hex, port: number) => {
    const config = loadOracleConfig({
      ENVIRONMENT: 'test',
      DEVNET_A_RPC_URL: a.rpcUrl,
      DEVNET_B_RPC_URL: b.rpcUrl,
      ECDSA_PRIVATE_KEY: key,
    });
    const oracle = await createOracleApp(config, new RawKeySigner(key), { logger: false });
    await oracle.listen({ port, host: '127.0.0.1' });
    oracles.push(oracle);
  };

  const bridge = async (app: TestApp, seed: number): Promise<Hex> => {
    const { code, body } = await postJson(
      app,
      '/quote/v2',
      ethQuoteBody(a, b, a.accounts.user.address, freshRecipient(seed)),
    );
    expect(code).toBe(200);
    await deposit(clients, a, body as Quote);
    return (body as Quote).protocol.v2.orderId;
  };

  const attestationsOf = async (db: Database, requestId: string) =>
    (
      await db.query<{ data: OracleAttestedData; stream_revision: string }>(
        `SELECT data, stream_revision::text FROM events WHERE stream_id = $1 AND event_type = 'OracleAttested'
          ORDER BY stream_revision`,
        [`request-${requestId.toLowerCase()}`],
      )
    ).rows;

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(oracles.map((oracle) => oracle.close()));
    await Promise.all([a?.stop(), b?.stop()]);
  });

  describe('the oracle mounted in the API process, quorum 1', () => {
    let app: TestApp;
    const env = () =>
      settlementEnv(a, b, { ORACLE_MOUNT: 'true', ORACLE_QUORUM: '1', ECDSA_PRIVATE_KEY: SIGNER_7 });

    beforeAll(async () => {
      app = await startTestApp(env());
    }, 60_000);
    afterAll(async () => app?.close());

    it('attests the deposit before the fill is submitted, then the fill; requests:verify recovers every signature', async () => {
      const db = app.app.get<Database>(DATABASE);
      const requestId = await bridge(app, 0x71);
      await waitFor(async () => (await requestStatus(app, requestId)).status === 'success', 'success');
      await waitFor(async () => (await attestationsOf(db, requestId)).length === 2, 'two attestations');

      const types = await eventTypesOf(db, requestId);
      expect(types.indexOf('OracleAttested')).toBeLessThan(types.indexOf('FillSubmitted'));
      const [depositAttested, fillAttested] = (await attestationsOf(db, requestId)).map((row) => row.data);
      expect(depositAttested.kind).toBe('depository-deposit');
      expect(depositAttested.message.result.depositId).toBe(requestId.toLowerCase());
      expect(depositAttested.counted).toEqual([address(SIGNER_7)]);
      expect(fillAttested.kind).toBe('solver-fill');
      expect(fillAttested.message.data.orderId).toBe(requestId.toLowerCase());
      expect(fillAttested.signatures.map((s) => s.signer)).toEqual([address(SIGNER_7)]);

      const verified = await runBuiltCli(['requests:verify', requestId], {
        DATABASE_URL: app.database.url,
        ORACLE_MOUNT: 'true',
        ECDSA_PRIVATE_KEY: SIGNER_7,
      });
      expect(verified.stderr).toBe('');
      expect(verified.code).toBe(0);
      expect(verified.stdout).toContain('VALID   depository-deposit');
      expect(verified.stdout).toContain('VALID   solver-fill');
      expect(verified.stdout).toContain('All 2 attestation(s) verify.');

      // An auditor who trusts another signer set finds nothing it can count.
      const untrusted = await runBuiltCli(['requests:verify', requestId], {
        DATABASE_URL: app.database.url,
        ORACLE_SIGNERS: address(SIGNER_8),
      });
      expect(untrusted.code).toBe(1);
      expect(untrusted.stdout).toContain('signer is not in the configured signer set');
    });

    it("a forged attestation (signed by another key in the oracle signer's name) is INVALID under requests:verify", async () => {
      const db = app.app.get<Database>(DATABASE);
      const requestId = await bridge(app, 0x72);
      await waitFor(async () => (await attestationsOf(db, requestId)).length === 2, 'two attestations');
      const genuine = (await attestationsOf(db, requestId))[1].data;
      const message = {
        ...genuine.message,
        result: { ...genuine.message.result, amount: '1' },
      } as never;
      const domain = { ...genuine.domain, verifyingContract: genuine.domain.verifyingContract as Hex };
      const forgedSignature = await new RawKeySigner(SIGNER_8).signDigest(
        digestOf('solver-refund', message, domain),
      );
      await app.app.get(CommandBus).execute(
        new ExecuteRequestCommand(requestId, {
          type: 'RecordAttestation',
          data: {
            ...genuine,
            subject: `refund:${genuine.message.data.chainId as string}:0x${'0f'.repeat(32)}`,
            kind: 'solver-refund',
            messageId: messageIdOf('solver-refund', message),
            message,
            signatures: [{ signer: address(SIGNER_7), signature: forgedSignature, shadow: false }],
          },
        }),
      );
      const verified = await runBuiltCli(['requests:verify', requestId], {
        DATABASE_URL: app.database.url,
        ORACLE_MOUNT: 'true',
        ECDSA_PRIVATE_KEY: SIGNER_7,
      });
      expect(verified.code).toBe(1);
      expect(verified.stdout).toContain(`INVALID solver-refund`);
      expect(verified.stdout).toContain(`recovers to ${address(SIGNER_8)}, not ${address(SIGNER_7)}`);
    });
  });

  describe('two oracle instances over HTTP, quorum 2', () => {
    let app: TestApp;
    let portA: number;
    let portB: number;

    beforeAll(async () => {
      [portA, portB] = [await freePort(), await freePort()];
      await startOracle(SIGNER_7, portA);
      app = await startTestApp(
        settlementEnv(a, b, {
          ORACLE_URLS: `http://127.0.0.1:${portA},http://127.0.0.1:${portB}`,
          ORACLE_SIGNERS: `${address(SIGNER_7)},${address(SIGNER_8)}`,
          ORACLE_QUORUM: '2',
          ORACLE_TIMEOUT_MS: '2000',
        }),
      );
    }, 60_000);
    afterAll(async () => app?.close());

    it('with one signer attesting, the deposit is not filled; when the second oracle comes up, it is', async () => {
      const db = app.app.get<Database>(DATABASE);
      const requestId = await bridge(app, 0x73);
      await waitFor(async () => {
        const { rows } = await db.query<{ last_error: string | null }>(
          `SELECT last_error FROM solver_jobs WHERE request_id = $1 AND kind = 'attest'`,
          [requestId.toLowerCase()],
        );
        return rows[0]?.last_error?.includes('not met: 1 of 2 signers') === true;
      }, 'the attestation to miss its quorum');
      expect((await requestStatus(app, requestId)).status).toBe('pending');
      expect(await eventTypesOf(db, requestId)).not.toContain('FillSubmitted');

      await startOracle(SIGNER_8, portB);
      await waitFor(
        async () => (await requestStatus(app, requestId)).status === 'success',
        'success',
        60_000,
      );
      const [attested] = await attestationsOf(db, requestId);
      expect(attested.data.counted).toEqual([address(SIGNER_7), address(SIGNER_8)]);
      const types = await eventTypesOf(db, requestId);
      expect(types.indexOf('OracleAttested')).toBeLessThan(types.indexOf('FillSubmitted'));
    }, 90_000);
  });
});

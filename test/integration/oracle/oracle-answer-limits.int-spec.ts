import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hex } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import type { Attestation, OracleSignature } from '../../../src/oracle/attestation.js';
import { HttpSource } from '../../../src/oracle/client/attestation-sources.js';
import { digestOf } from '../../../src/oracle/messages/oracle-messages.js';
import { RawKeySigner } from '../../../src/oracle/signer/oracle-signer.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';
import { OracleFacts, orderIdOf } from '../../support/oracle-facts.js';
import {
  captureLogs,
  HttpRelay,
  ORACLE_SIGNER_KEYS,
  postJson,
  type RunningOracle,
  startOracle,
} from '../../support/oracle.js';

const DEPOSITS = '/attestations/depository-deposits/v1';
/** The documented limits (docs/oracle.md, "Answers read from other oracles"). */
const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_ANSWER_SIGNATURES = 64;
/** Far above the cap: read whole, it is what an unbounded reader would keep in memory. */
const HUGE_BYTES = 32 * 1024 * 1024;
/** Long enough that a reader without a size cap reads the whole huge answer before it gives up. */
const TIMEOUT_MS = 30_000;

/**
 * A hostile oracle on loopback: it asks the real instance behind it and answers that genuine attestation preceded by
 * a `padding` field of HUGE_BYTES, streamed in chunks without a content-length (still valid JSON, so a reader that
 * reads it whole accepts it). It records whether each answer was written to the end or cut short by the reader.
 */
class StreamingPadder {
  readonly answers: { complete: boolean }[] = [];
  private server: Server | null = null;

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => void this.answer(request.url ?? '/', Buffer.concat(chunks), response));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async answer(url: string, body: Buffer, response: ServerResponse): Promise<void> {
    const record = { complete: false };
    this.answers.push(record);
    const genuine = await (
      await fetch(`${this.target}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
    ).text();
    response.writeHead(200, { 'content-type': 'application/json' });
    const write = (chunk: string) =>
      new Promise<boolean>((resolve) => {
        if (response.destroyed) return resolve(false);
        if (response.write(chunk)) return resolve(true);
        const settle = () => {
          response.off('drain', settle);
          response.off('close', settle);
          resolve(!response.destroyed);
        };
        response.on('drain', settle).on('close', settle);
      });
    const piece = 'x'.repeat(64 * 1024);
    if (!(await write('{"padding":"'))) return;
    for (let sent = 0; sent < HUGE_BYTES; sent += piece.length) {
      if (!(await write(piece))) return;
    }
    if (!(await write(`",${genuine.slice(1)}`))) return;
    response.end(() => (record.complete = true));
  }
}

/** The genuine answer with a `padding` field of HUGE_BYTES (sent whole, with its content-length). */
const padded = (body: string) => JSON.stringify({ padding: 'x'.repeat(HUGE_BYTES), ...JSON.parse(body) });

/**
 * The answers Ferry reads from other oracles (peer answers in PeerSignatures, oracle answers in HttpSource) are
 * bounded: an answer over MAX_ANSWER_BYTES is cut off where the cap is passed, and one holding more than
 * MAX_ANSWER_SIGNATURES signatures is dropped before any is recovered. Either counts as that peer or oracle failing.
 * Real instances on loopback against a real devnet; the hostile ones are relays in front of a genuine instance, so
 * everything but the size of their answers is genuine.
 */
describe('answers read from other oracles are bounded', () => {
  const logs = captureLogs('info');
  const stops: (() => Promise<void>)[] = [];
  let chain: Devnet;
  let facts: OracleFacts;
  let honest: RunningOracle;
  let aggregator: RunningOracle;
  let streamer: StreamingPadder;
  const urls = { streamed: '', padded: '', crowded: '' };
  let request: { chainId: number; transactionId: Hex };
  let crowd: OracleSignature[] = [];

  beforeAll(async () => {
    chain = await startDevnet({ chainId: 31337 });
    stops.push(() => chain.stop());
    facts = new OracleFacts(chain);
    const env = { DEVNET_A_RPC_URL: chain.rpcUrl, DEVNET_B_RPC_URL: chain.rpcUrl };
    honest = await startOracle({ env, privateKey: ORACLE_SIGNER_KEYS.eight, logger: logs.logger });
    stops.unshift(() => honest.stop());
    const receipt = await facts.depositNative(orderIdOf('answer-limits'), 1_000n);
    request = { chainId: 31337, transactionId: receipt.transactionHash };
    const genuine = (await postJson(honest.url, DEPOSITS, request)).body as unknown as Attestation;
    // Valid signatures of the same message by random keys: each recovers, none is in anyone's signer set.
    const digest = digestOf(genuine.kind, genuine.message, genuine.domain);
    crowd = await Promise.all(
      Array.from({ length: MAX_ANSWER_SIGNATURES }, async () => {
        const signer = new RawKeySigner(generatePrivateKey());
        return { signer: signer.address, signature: await signer.signDigest(digest), shadow: false };
      }),
    );
    streamer = new StreamingPadder(honest.url);
    urls.streamed = await streamer.start();
    stops.unshift(() => streamer.stop());
    const crowded = (body: string) => {
      const answer = JSON.parse(body) as Attestation;
      return JSON.stringify({ ...answer, signatures: [...answer.signatures, ...crowd] });
    };
    for (const [name, rewrite] of [
      ['padded', padded],
      ['crowded', crowded],
    ] as const) {
      const relay = new HttpRelay(honest.url, { rewrite });
      urls[name] = await relay.start();
      stops.unshift(() => relay.stop());
    }
    aggregator = await startOracle({
      env: {
        ...env,
        PEER_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
        PEERS: [urls.streamed, urls.padded, urls.crowded].map((url) => `${url}|pass-through`).join(';'),
      },
      privateKey: ORACLE_SIGNER_KEYS.seven,
      logger: logs.logger,
    });
    stops.unshift(() => aggregator.stop());
  }, 180_000);
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  it('an honest answer is read whole (the cap is far above a real attestation)', async () => {
    const sut = new HttpSource(honest.url, null, TIMEOUT_MS);

    const answer = await sut.attest('depository-deposit', request);

    expect(answer.signatures.map((signature) => signature.signer)).toEqual([honest.signer.address]);
    expect(JSON.stringify(answer).length).toBeLessThan(MAX_ANSWER_BYTES / 16);
  });

  it('HttpSource: an oracle streaming an answer past the cap fails, and the read stops there', async () => {
    const sut = new HttpSource(urls.streamed, null, TIMEOUT_MS);
    const before = streamer.answers.length;

    await expect(sut.attest('depository-deposit', request)).rejects.toThrow(
      `${urls.streamed}: answer exceeds ${MAX_ANSWER_BYTES} bytes`,
    );

    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(streamer.answers.slice(before)).toEqual([{ complete: false }]);
  });

  it('HttpSource: an oracle announcing an answer past the cap (content-length) fails', async () => {
    const sut = new HttpSource(urls.padded, null, TIMEOUT_MS);

    await expect(sut.attest('depository-deposit', request)).rejects.toThrow(
      `${urls.padded}: answer exceeds ${MAX_ANSWER_BYTES} bytes`,
    );
  });

  it('HttpSource: an oracle answering more than the most signatures an answer may hold fails', async () => {
    const sut = new HttpSource(urls.crowded, null, TIMEOUT_MS);

    await expect(sut.attest('depository-deposit', request)).rejects.toThrow(
      `${urls.crowded}: answer holds ${MAX_ANSWER_SIGNATURES + 1} signatures, more than ${MAX_ANSWER_SIGNATURES}`,
    );
  });

  it('peers answering past the cap, or with too many signatures, are skipped as failed; none of theirs is kept', async () => {
    const before = streamer.answers.length;

    const answer = await postJson(aggregator.url, DEPOSITS, { ...request, requestPeerSignatures: true });

    expect(answer.status).toBe(200);
    const attestation = answer.body as unknown as Attestation;
    expect(attestation.signatures.map((signature) => signature.signer)).toEqual([aggregator.signer.address]);
    const outcomes = logs.peerOutcomes(attestation.messageId);
    expect(outcomes[urls.streamed]).toMatchObject({
      outcome: 'failed',
      reason: `answer exceeds ${MAX_ANSWER_BYTES} bytes`,
    });
    expect(outcomes[urls.padded]).toMatchObject({
      outcome: 'failed',
      reason: `answer exceeds ${MAX_ANSWER_BYTES} bytes`,
    });
    expect(outcomes[urls.crowded]).toMatchObject({
      outcome: 'failed',
      reason: `answer holds ${MAX_ANSWER_SIGNATURES + 1} signatures, more than ${MAX_ANSWER_SIGNATURES}`,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(streamer.answers.slice(before)).toEqual([{ complete: false }]);
  });
});

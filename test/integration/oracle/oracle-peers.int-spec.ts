import { type Address, type Hex, hexToBigInt, numberToHex } from 'viem';
import type { Attestation } from '../../../src/oracle/attestation.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';
import { NATIVE, OracleFacts, orderIdOf } from '../../support/oracle-facts.js';
import {
  captureLogs,
  countedOnchain,
  HttpRelay,
  malleated,
  ORACLE_SIGNER_KEYS,
  postJson,
  recoveredSigners,
  type RunningOracle,
  startOracle,
  withRawRecoveryId,
} from '../../support/oracle.js';
import { freePort } from '../../support/process.js';
import { RpcProxy } from '../../support/rpc-proxy.js';

const DEPOSITS = '/attestations/depository-deposits/v1';
const FILLS = '/attestations/solver-fills/v1';
const CALLER_KEY = 'k-caller-7f3a0c';
const OTHER_KEY = 'k-other-55d0e1';
const PEER_KEY = 'k-peer-91c2b4';
const TIMEOUT_MS = 2000;

/** A node that reports every depository event with its amount raised by one: another chain state. */
const inflateDepositoryAmounts = (depository: string) => (result: unknown) => {
  const receipt = result as { logs?: { address: string; data: Hex }[] } | null;
  if (!receipt?.logs) return result;
  return {
    ...receipt,
    logs: receipt.logs.map((log) =>
      log.address.toLowerCase() === depository.toLowerCase()
        ? { ...log, data: numberToHex(hexToBigInt(log.data) + 1n, { size: 32 }) }
        : log,
    ),
  };
};

/** A peer that answers the real peer's signature but names another signer for it. */
const claimSigner = (claimed: Address) => (body: string) => {
  const answer = JSON.parse(body) as { signatures?: { signer: string }[] };
  for (const signature of answer.signatures ?? []) signature.signer = claimed;
  return JSON.stringify(answer);
};

/** A peer that answers the real peer's signatures rewritten by `how` (a malleated copy of the same signature). */
const rewriteSignatures = (how: (signature: Hex) => Hex) => (body: string) => {
  const answer = JSON.parse(body) as { signatures?: { signature: Hex }[] };
  for (const signature of answer.signatures ?? []) signature.signature = how(signature.signature);
  return JSON.stringify(answer);
};

/**
 * Oracle instances on loopback against one real devnet, aggregating over real HTTP: an instance agreeing, one reading
 * another chain state (a node that inflates depository amounts), one slower than PEER_REQUEST_TIMEOUT_MS (a relay that
 * holds its requests), one in shadow mode, one down, one forging who signed; the aggregate keeps exactly the
 * agreeing signatures, and no peer ever fails the request.
 */
describe('oracle peers over real HTTP', () => {
  const logs = captureLogs('debug');
  const stops: (() => Promise<void>)[] = [];
  let chain: Devnet;
  let facts: OracleFacts;
  let aggregator: RunningOracle;
  let passThrough: RunningOracle;
  let malleatedPeers: RunningOracle;
  let agree: RunningOracle;
  let disagree: RunningOracle;
  let slow: RunningOracle;
  let shadow: RunningOracle;
  let agreeRelay: HttpRelay;
  let slowRelay: HttpRelay;
  const urls = { agree: '', slow: '', forger: '', highS: '', rawV: '', dead: '' };
  const forgedSigner = '0x000000000000000000000000000000000000dEaD' as Address;

  beforeAll(async () => {
    chain = await startDevnet({ chainId: 31337 });
    stops.push(() => chain.stop());
    facts = new OracleFacts(chain);
    urls.dead = `http://127.0.0.1:${await freePort()}`;
    const start = async (privateKey: Hex, rpcUrl: string, extra: Record<string, string> = {}) => {
      const oracle = await startOracle({
        privateKey,
        logger: logs.logger,
        env: { DEVNET_A_RPC_URL: rpcUrl, DEVNET_B_RPC_URL: urls.dead, ...extra },
      });
      stops.unshift(() => oracle.stop());
      return oracle;
    };
    const lyingNode = new RpcProxy(chain.rpcUrl, (method) =>
      method === 'eth_getTransactionReceipt'
        ? { kind: 'rewrite-result', rewrite: inflateDepositoryAmounts(chain.deployment.depository) }
        : null,
    );
    const lyingRpcUrl = await lyingNode.start();
    stops.unshift(() => lyingNode.stop());
    const peerKeys = { API_KEYS: `${PEER_KEY}:aggregator;${CALLER_KEY}:caller-through-peer` };
    agree = await start(ORACLE_SIGNER_KEYS.eight, chain.rpcUrl, peerKeys);
    disagree = await start(ORACLE_SIGNER_KEYS.nine, lyingRpcUrl, peerKeys);
    slow = await start(ORACLE_SIGNER_KEYS.six, chain.rpcUrl, peerKeys);
    shadow = await start(ORACLE_SIGNER_KEYS.ten, chain.rpcUrl, { ...peerKeys, SHADOW_MODE: 'true' });
    agreeRelay = new HttpRelay(agree.url);
    slowRelay = new HttpRelay(slow.url, { hold: true });
    const forger = new HttpRelay(agree.url, { rewrite: claimSigner(forgedSigner) });
    const highS = new HttpRelay(agree.url, { rewrite: rewriteSignatures(malleated) });
    const rawV = new HttpRelay(agree.url, { rewrite: rewriteSignatures(withRawRecoveryId) });
    for (const [name, relay] of [
      ['agree', agreeRelay],
      ['slow', slowRelay],
      ['forger', forger],
      ['highS', highS],
      ['rawV', rawV],
    ] as const) {
      urls[name] = await relay.start();
      stops.unshift(async () => {
        if (relay === slowRelay) relay.release();
        await relay.stop();
      });
    }
    const callers = { API_KEYS: `${CALLER_KEY}:caller;${OTHER_KEY}:other` };
    aggregator = await start(ORACLE_SIGNER_KEYS.seven, chain.rpcUrl, {
      ...callers,
      PEER_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
      PEERS: [urls.agree, disagree.url, urls.slow, shadow.url, urls.dead, urls.forger]
        .map((url) => `${url}|${PEER_KEY}`)
        .join(';'),
    });
    passThrough = await start(ORACLE_SIGNER_KEYS.seven, chain.rpcUrl, {
      ...callers,
      PEERS: `${urls.agree}|pass-through`,
    });
    malleatedPeers = await start(ORACLE_SIGNER_KEYS.seven, chain.rpcUrl, {
      ...callers,
      PEERS: [urls.highS, urls.rawV, urls.agree].map((url) => `${url}|${PEER_KEY}`).join(';'),
    });
  }, 180_000);
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  const alone = async (oracle: RunningOracle, path: string, request: object, key = PEER_KEY) => {
    const answer = await postJson(oracle.url, path, request, key);
    expect(answer.status).toBe(200);
    return answer.body as unknown as Attestation;
  };
  /** `oracle`'s answer when the caller asks it to gather its peers' signatures (requestPeerSignatures). */
  const aggregated = (oracle: RunningOracle, path: string, request: object) =>
    alone(oracle, path, { ...request, requestPeerSignatures: true }, CALLER_KEY);

  it('keeps exactly the agreeing peer; the disagreeing, slow, shadow, down and forging ones are skipped', async () => {
    const receipt = await facts.depositNative(orderIdOf('peers-deposit'), 1_000n);
    const request = { chainId: 31337, transactionId: receipt.transactionHash };
    // Each instance asked on its own: all sign our message but the one reading another chain state.
    const own = await alone(aggregator, DEPOSITS, request, CALLER_KEY);
    const agreed = await alone(agree, DEPOSITS, request);
    const other = await alone(disagree, DEPOSITS, request);
    const late = await alone(slow, DEPOSITS, request);
    const shadowed = await alone(shadow, DEPOSITS, request);
    expect([agreed, late, shadowed].map((answer) => answer.messageId)).toEqual(Array(3).fill(own.messageId));
    expect(other.message.result).toMatchObject({ amount: '1001' });
    expect(shadowed.signatures).toEqual([
      expect.objectContaining({ signer: shadow.signer.address, shadow: true }),
    ]);
    const sentBefore = agreeRelay.requests.length;

    const attestation = await aggregated(aggregator, DEPOSITS, request);

    expect(attestation.messageId).toBe(own.messageId);
    expect(attestation.signatures).toEqual([own.signatures[0], agreed.signatures[0]]);
    expect(await recoveredSigners(attestation)).toEqual([aggregator.signer.address, agree.signer.address]);
    // The peer was asked the same question with its own key, and told not to fan out in turn.
    const sent = agreeRelay.requests.slice(sentBefore);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', url: DEPOSITS, headers: { 'x-api-key': PEER_KEY } });
    expect(JSON.parse(sent[0].body)).toEqual({ ...request, requestPeerSignatures: false });
    expect(slowRelay.requests).toHaveLength(1);
    const outcomes = logs.peerOutcomes(own.messageId);
    expect(Object.keys(outcomes)).toHaveLength(6);
    expect(outcomes[urls.agree]).toMatchObject({ outcome: 'agreed', signers: [agree.signer.address] });
    expect(outcomes[disagree.url]).toMatchObject({
      outcome: 'disagreed',
      reason: `message ${other.messageId} differs from ours ${own.messageId}`,
    });
    expect(outcomes[urls.slow]).toMatchObject({
      outcome: 'timed-out',
      reason: `no answer within ${TIMEOUT_MS} ms`,
    });
    expect(outcomes[shadow.url]).toMatchObject({
      outcome: 'shadow-agreed',
      signers: [shadow.signer.address],
    });
    expect(outcomes[urls.dead]).toMatchObject({ outcome: 'failed' });
    expect(outcomes[urls.forger]).toMatchObject({
      outcome: 'disagreed',
      reason: `a signature does not recover to ${forgedSigner}`,
    });
  });

  it("skips a peer answering a malleated copy of a signer's signature, so the genuine one is kept and counts onchain", async () => {
    const receipt = await facts.depositNative(orderIdOf('peers-malleated'), 1_000n);
    const request = { chainId: 31337, transactionId: receipt.transactionHash };
    const agreed = await alone(agree, DEPOSITS, request);

    const attestation = await aggregated(malleatedPeers, DEPOSITS, request);

    expect(attestation.signatures).toEqual([
      expect.objectContaining({ signer: malleatedPeers.signer.address }),
      agreed.signatures[0],
    ]);
    // Hardhat #7 and #8 are the devnet verifier's signers: both signatures must count there.
    expect(await countedOnchain(chain, attestation)).toBe(2);
    const outcomes = logs.peerOutcomes(attestation.messageId);
    for (const url of [urls.highS, urls.rawV]) {
      expect(outcomes[url]).toMatchObject({
        outcome: 'disagreed',
        reason: expect.stringMatching(
          new RegExp(`^a signature of ${agree.signer.address} is not canonical: `),
        ),
      });
    }
  });

  it('agreement is per fact: the instance on the other chain state agrees on a fill it reads alike', async () => {
    const orderId = orderIdOf('peers-fill');
    const recipient = `0x${'c3'.repeat(20)}` as Address;
    const receipt = await facts.pay(NATIVE, recipient, 9_000n, orderId);
    const request = {
      chainId: 31337,
      transactionId: receipt.transactionHash,
      orderId,
      recipient,
      currency: NATIVE,
      minimumAmount: '9000',
    };
    const attestation = await aggregated(aggregator, FILLS, request);
    expect(attestation.signatures.map((signature) => signature.signer)).toEqual([
      aggregator.signer.address,
      agree.signer.address,
      disagree.signer.address,
    ]);
    expect(attestation.signatures.every((signature) => signature.shadow === false)).toBe(true);
    expect(await recoveredSigners(attestation)).toEqual([
      aggregator.signer.address,
      agree.signer.address,
      disagree.signer.address,
    ]);
    expect(JSON.parse(agreeRelay.requests.at(-1)!.body)).toEqual({
      ...request,
      requestPeerSignatures: false,
    });
  });

  it('asks no peer without requestPeerSignatures, nor when this instance cannot attest', async () => {
    const receipt = await facts.depositNative(orderIdOf('peers-not-asked'), 1_000n);
    const sentBefore = agreeRelay.requests.length;
    const plain = await postJson(
      aggregator.url,
      DEPOSITS,
      { chainId: 31337, transactionId: receipt.transactionHash },
      CALLER_KEY,
    );
    expect(plain.status).toBe(200);
    expect((plain.body as unknown as Attestation).signatures).toHaveLength(1);
    const unknown = await postJson(
      aggregator.url,
      DEPOSITS,
      { chainId: 31337, transactionId: `0x${'ee'.repeat(32)}`, requestPeerSignatures: true },
      CALLER_KEY,
    );
    expect(unknown).toMatchObject({ status: 400, body: { errorCode: 'TRANSACTION_NOT_FOUND' } });
    expect(agreeRelay.requests).toHaveLength(sentBefore);
  });

  it("pass-through forwards the caller's own x-api-key: a key the peer knows gets its signature, another does not", async () => {
    const receipt = await facts.depositNative(orderIdOf('peers-pass-through'), 1_000n);
    const request = { chainId: 31337, transactionId: receipt.transactionHash, requestPeerSignatures: true };

    const known = await postJson(passThrough.url, DEPOSITS, request, CALLER_KEY);
    expect(known.status).toBe(200);
    expect((known.body as unknown as Attestation).signatures.map((signature) => signature.signer)).toEqual([
      passThrough.signer.address,
      agree.signer.address,
    ]);
    expect(agreeRelay.requests.at(-1)!.headers['x-api-key']).toBe(CALLER_KEY);
    expect(logs.find('oracle caller').some((line) => line.caller === 'caller-through-peer')).toBe(true);

    const unknownToPeer = await postJson(passThrough.url, DEPOSITS, request, OTHER_KEY);
    expect(unknownToPeer.status).toBe(200);
    const attestation = unknownToPeer.body as unknown as Attestation;
    expect(attestation.signatures.map((signature) => signature.signer)).toEqual([passThrough.signer.address]);
    expect(agreeRelay.requests.at(-1)!.headers['x-api-key']).toBe(OTHER_KEY);
    expect(logs.peerOutcomes(attestation.messageId)[urls.agree]).toMatchObject({
      outcome: 'failed',
      reason: 'HTTP 401 UNAUTHORIZED',
    });
  });

  it('logs labels, never a key', () => {
    expect(logs.find('oracle caller').length).toBeGreaterThan(0);
    for (const key of [CALLER_KEY, OTHER_KEY, PEER_KEY]) expect(logs.text()).not.toContain(key);
  });
});

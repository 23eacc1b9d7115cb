import { type Address, getAddress, type Hex, parseEther } from 'viem';
import type { Attestation } from '../../../src/oracle/attestation.js';
import { messageIdOf } from '../../../src/oracle/messages/oracle-messages.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { NATIVE, OracleFacts, orderIdOf } from '../../support/oracle-facts.js';
import { postJson, recoveredSigners, type RunningOracle, startOracle } from '../../support/oracle.js';
import { freePort } from '../../support/process.js';

const DEPOSITS = '/attestations/depository-deposits/v1';
const WITHDRAWALS = '/attestations/depository-withdrawals/v1';
const FILLS = '/attestations/solver-fills/v1';
const REFUNDS = '/attestations/solver-refunds/v1';
const RECIPIENT = getAddress(`0x${'c3'.repeat(20)}`);
const UNKNOWN_TX = `0x${'ee'.repeat(32)}` as Hex;

interface Refusal {
  readonly message: string;
  readonly errorCode: string;
  readonly errorData?: Record<string, unknown> & { found?: unknown };
}

/**
 * One oracle instance against two real devnets (31337, 31338), over real HTTP: every attestation kind on facts made
 * for real (true), each near miss (false, 400 with the documented errorCode and what was found), transactions not
 * final yet, and a chain whose RPC is down.
 */
describe('oracle attestations on real devnets', () => {
  let a: Devnet;
  let b: Devnet;
  let factsA: OracleFacts;
  let factsB: OracleFacts;
  let sut: RunningOracle;

  beforeAll(async () => {
    [a, b] = await startDevnets();
    factsA = new OracleFacts(a);
    factsB = new OracleFacts(b);
    sut = await startOracle({ env: { DEVNET_A_RPC_URL: a.rpcUrl, DEVNET_B_RPC_URL: b.rpcUrl } });
  }, 180_000);
  afterAll(async () => {
    await sut?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  /** A 200 whose message id, domain and one signature are this instance's. */
  async function attested(path: string, body: object, oracle = sut): Promise<Attestation> {
    const answer = await postJson(oracle.url, path, body);
    expect(answer).toMatchObject({ status: 200 });
    const attestation = answer.body as unknown as Attestation;
    expect(attestation.messageId).toBe(messageIdOf(attestation.kind, attestation.message));
    expect(attestation.domain).toEqual(oracle.config.domain);
    expect(attestation.signatures).toEqual([
      { signer: oracle.signer.address, signature: expect.stringMatching(/^0x[0-9a-f]{130}$/), shadow: false },
    ]);
    expect(await recoveredSigners(attestation)).toEqual([oracle.signer.address]);
    return attestation;
  }

  async function refused(path: string, body: object, errorCode: string, oracle = sut): Promise<Refusal> {
    const answer = await postJson<Refusal>(oracle.url, path, body);
    expect({ status: answer.status, errorCode: answer.body.errorCode }).toEqual({ status: 400, errorCode });
    return answer.body;
  }

  const payment = (transactionId: Hex, orderId: Hex, currency: Address, minimumAmount: bigint) => ({
    chainId: 31337,
    transactionId,
    orderId,
    recipient: RECIPIENT,
    currency,
    minimumAmount: minimumAmount.toString(),
  });

  describe('true', () => {
    it('attests a native deposit with what the depository logged', async () => {
      const orderId = orderIdOf('native-deposit');
      const receipt = await factsA.depositNative(orderId, parseEther('1.5'));
      const attestation = await attested(DEPOSITS, {
        chainId: '31337',
        transactionId: receipt.transactionHash,
      });
      expect(attestation.kind).toBe('depository-deposit');
      expect(attestation.message).toEqual({
        data: { chainId: '31337', transactionId: receipt.transactionHash },
        result: {
          depository: a.deployment.depository,
          depositId: orderId,
          depositor: a.accounts.user.address,
          currency: NATIVE,
          amount: parseEther('1.5').toString(),
          logIndex: String(receipt.logs[0].logIndex),
        },
      });
    });

    it('attests a USDC deposit on the chain named, picked by depositId and logIndex', async () => {
      const orderId = orderIdOf('usdc-deposit');
      const receipt = await factsB.depositUsdc(orderId, 25_000_000n);
      const log = receipt.logs.find((entry) => entry.address === b.deployment.depository.toLowerCase());
      const attestation = await attested(DEPOSITS, {
        chainId: 31338,
        transactionId: receipt.transactionHash,
        depositId: orderId,
        logIndex: log!.logIndex,
      });
      expect(attestation.message.data).toEqual({ chainId: '31338', transactionId: receipt.transactionHash });
      expect(attestation.message.result).toMatchObject({
        depositId: orderId,
        currency: b.deployment.usdc,
        amount: '25000000',
        logIndex: String(log!.logIndex),
      });
    });

    it('asks which deposit when a transaction holds several, and attests the one named by logIndex', async () => {
      const orderId = orderIdOf('two-deposits');
      const receipt = await factsA.depositTwiceInOneTransaction(orderId, 100n);
      const logIndexes = receipt.logs
        .filter((log) => log.address === a.deployment.depository.toLowerCase())
        .map((log) => log.logIndex);
      expect(logIndexes).toHaveLength(2);
      const request = { chainId: 31337, transactionId: receipt.transactionHash };
      for (const body of [request, { ...request, depositId: orderId }]) {
        const refusal = await refused(DEPOSITS, body, 'AMBIGUOUS_ATTESTATION');
        expect(refusal.message).toMatch(/^Transaction holds 2 matching events .*; name one with logIndex$/);
        expect(refusal.errorData?.found).toHaveLength(2);
      }
      const second = await attested(DEPOSITS, { ...request, depositId: orderId, logIndex: logIndexes[1] });
      expect(second.message.result).toMatchObject({ amount: '100', logIndex: String(logIndexes[1]) });
      const notADeposit = logIndexes[0] + 1;
      const { message } = await refused(
        DEPOSITS,
        { ...request, logIndex: notADeposit },
        'ATTESTATION_MISMATCH',
      );
      expect(message).toMatch(/holds no matching deposit .*; it holds 2 others$/);
    });

    it("attests a withdrawal by the depository's owner", async () => {
      await factsA.depositNative(orderIdOf('to-withdraw'), parseEther('2'));
      const receipt = await factsA.withdraw(NATIVE, RECIPIENT, parseEther('0.5'));
      const attestation = await attested(WITHDRAWALS, {
        chainId: 31337,
        transactionId: receipt.transactionHash,
      });
      expect(attestation.message.result).toEqual({
        depository: a.deployment.depository,
        currency: NATIVE,
        recipient: RECIPIENT,
        amount: parseEther('0.5').toString(),
        logIndex: String(receipt.logs[0].logIndex),
      });
    });

    it.each([
      ['in the native currency', 'native'],
      ['in USDC (a transfer with the order id appended)', 'usdc'],
      ['through the call executor (its Filled event)', 'executor'],
    ])('attests a fill %s, with the amount paid, at least the minimum', async (_name, how) => {
      const orderId = orderIdOf(`fill-${how}`);
      const currency = how === 'usdc' ? a.deployment.usdc : NATIVE;
      const receipt =
        how === 'executor'
          ? await factsA.fillThroughExecutor(RECIPIENT, 7_777n, orderId)
          : await factsA.pay(currency, RECIPIENT, 7_777n, orderId);
      const request = payment(receipt.transactionHash, orderId, currency, 7_000n);
      const attestation = await attested(FILLS, request);
      expect(attestation.kind).toBe('solver-fill');
      expect(attestation.message).toEqual({
        data: { ...request, chainId: '31337', minimumAmount: '7000' },
        result: { solver: a.accounts.solver.address, recipient: RECIPIENT, currency, amount: '7777' },
      });
    });

    it('attests a refund under its own kind: the same transaction read as a fill is another message', async () => {
      const orderId = orderIdOf('refund');
      const receipt = await factsA.pay(NATIVE, RECIPIENT, 4_000n, orderId);
      const request = payment(receipt.transactionHash, orderId, NATIVE, 4_000n);
      const refund = await attested(REFUNDS, request);
      const fill = await attested(FILLS, request);
      expect(refund.kind).toBe('solver-refund');
      expect(refund.message).toEqual(fill.message);
      expect(refund.messageId).not.toBe(fill.messageId);
    });
  });

  describe('false', () => {
    it('a plain transfer is no deposit', async () => {
      const receipt = await factsA.plainTransfer(RECIPIENT, 1_000n);
      const { message } = await refused(
        DEPOSITS,
        { chainId: 31337, transactionId: receipt.transactionHash },
        'ATTESTATION_MISMATCH',
      );
      expect(message).toBe(`Transaction holds no deposit into the depository ${a.deployment.depository}`);
    });

    it('a deposit asked with another depositId is refused, naming the deposit found', async () => {
      const orderId = orderIdOf('deposit-other-id');
      const receipt = await factsA.depositNative(orderId, 1_000n);
      const refusal = await refused(
        DEPOSITS,
        { chainId: 31337, transactionId: receipt.transactionHash, depositId: orderIdOf('not-this-one') },
        'ATTESTATION_MISMATCH',
      );
      expect(refusal.message).toMatch(/holds no matching deposit .*; it holds 1 other$/);
      expect(refusal.errorData?.found).toEqual([
        expect.objectContaining({ depositId: orderId, amount: '1000' }),
      ]);
    });

    it('a deposit is no withdrawal', async () => {
      const receipt = await factsA.depositNative(orderIdOf('not-a-withdrawal'), 1_000n);
      const { message } = await refused(
        WITHDRAWALS,
        { chainId: 31337, transactionId: receipt.transactionHash },
        'ATTESTATION_MISMATCH',
      );
      expect(message).toMatch(/^Transaction holds no withdrawal from the depository/);
    });

    it('a payment not sent by the solver is no fill', async () => {
      const orderId = orderIdOf('fill-by-user');
      const receipt = await factsA.pay(NATIVE, RECIPIENT, 5_000n, orderId, a.accounts.user.privateKey);
      const { message } = await refused(
        FILLS,
        payment(receipt.transactionHash, orderId, NATIVE, 5_000n),
        'ATTESTATION_MISMATCH',
      );
      expect(message).toBe(
        `Transaction was sent by ${a.accounts.user.address.toLowerCase()}, not the solver ${a.accounts.solver.address}`,
      );
    });

    it('a payment below the minimum is no fill', async () => {
      const orderId = orderIdOf('fill-short');
      const receipt = await factsA.pay(a.deployment.usdc, RECIPIENT, 999n, orderId);
      const { message } = await refused(
        FILLS,
        payment(receipt.transactionHash, orderId, a.deployment.usdc, 1_000n),
        'ATTESTATION_MISMATCH',
      );
      expect(message).toBe(
        `Transaction paid 999 of ${a.deployment.usdc} to ${RECIPIENT}, below the minimum 1000`,
      );
    });

    it('a payment tagged with another order is no fill of this one', async () => {
      const orderId = orderIdOf('fill-untagged');
      const receipt = await factsA.pay(NATIVE, RECIPIENT, 5_000n, orderIdOf('another-order'));
      const { message } = await refused(
        REFUNDS,
        payment(receipt.transactionHash, orderId, NATIVE, 5_000n),
        'ATTESTATION_MISMATCH',
      );
      expect(message).toBe(`Transaction is not tagged with order ${orderId}`);
    });

    it('a payment to someone else is no fill, in the native currency and in USDC', async () => {
      const orderId = orderIdOf('fill-elsewhere');
      const other = getAddress(`0x${'d4'.repeat(20)}`);
      const native = await factsA.pay(NATIVE, other, 5_000n, orderId);
      const nativeRefusal = await refused(
        FILLS,
        payment(native.transactionHash, orderId, NATIVE, 5_000n),
        'ATTESTATION_MISMATCH',
      );
      expect(nativeRefusal.message).toBe(
        `Transaction sends the native currency to ${other.toLowerCase()}, not ${RECIPIENT}`,
      );
      const usdc = await factsA.pay(a.deployment.usdc, other, 5_000n, orderId);
      const usdcRefusal = await refused(
        FILLS,
        payment(usdc.transactionHash, orderId, a.deployment.usdc, 0n),
        'ATTESTATION_MISMATCH',
      );
      expect(usdcRefusal.message).toBe(
        `Transaction transfers no ${a.deployment.usdc} from the solver to ${RECIPIENT}`,
      );
      expect(usdcRefusal.errorData?.found).toEqual({
        transfers: [{ token: a.deployment.usdc, from: a.accounts.solver.address, to: other, amount: '5000' }],
      });
      const executor = await factsA.fillThroughExecutor(other, 5_000n, orderId);
      const executorRefusal = await refused(
        FILLS,
        payment(executor.transactionHash, orderId, NATIVE, 0n),
        'ATTESTATION_MISMATCH',
      );
      expect(executorRefusal.message).toBe(
        `The call executor filled order ${orderId} with no ${NATIVE} to ${RECIPIENT}`,
      );
      expect(executorRefusal.errorData?.found).toEqual({
        filled: [{ token: NATIVE, recipient: other, amount: '5000' }],
      });
      const otherOrder = orderIdOf('fill-elsewhere-other-order');
      const { message } = await refused(
        FILLS,
        payment(executor.transactionHash, otherOrder, NATIVE, 0n),
        'ATTESTATION_MISMATCH',
      );
      expect(message).toBe(`The call executor filled no order ${otherOrder} in this transaction`);
    });

    it('a reverted transaction is no fill, even tagged and from the solver', async () => {
      const orderId = orderIdOf('fill-reverted');
      const receipt = await factsA.reverted(orderId);
      expect(receipt.status).toBe('reverted');
      const { message } = await refused(
        FILLS,
        payment(receipt.transactionHash, orderId, NATIVE, 0n),
        'ATTESTATION_MISMATCH',
      );
      expect(message).toBe('Transaction reverted');
    });

    it('an unknown transaction is TRANSACTION_NOT_FOUND on every kind', async () => {
      for (const [path, body] of [
        [DEPOSITS, { chainId: 31337, transactionId: UNKNOWN_TX }],
        [WITHDRAWALS, { chainId: 31338, transactionId: UNKNOWN_TX }],
        [FILLS, payment(UNKNOWN_TX, orderIdOf('x'), NATIVE, 1n)],
        [REFUNDS, payment(UNKNOWN_TX, orderIdOf('x'), NATIVE, 1n)],
      ] as const) {
        const refusal = await refused(path, body, 'TRANSACTION_NOT_FOUND');
        expect(refusal.message).toMatch(
          new RegExp(`^Chain 3133[78] has no mined transaction ${UNKNOWN_TX}$`),
        );
      }
    });
  });

  it('a transaction not final yet is TRANSACTION_NOT_FINAL, and the same request succeeds once it is', async () => {
    const deep = await startOracle({
      env: { DEVNET_A_RPC_URL: a.rpcUrl, DEVNET_B_RPC_URL: b.rpcUrl, DEVNET_FINALITY_BLOCKS: '3' },
    });
    try {
      const orderId = orderIdOf('not-final');
      const receipt = await factsA.depositNative(orderId, 3_000n);
      const request = { chainId: 31337, transactionId: receipt.transactionHash };
      const early = await refused(DEPOSITS, request, 'TRANSACTION_NOT_FINAL', deep);
      expect(early).toEqual({
        message: 'Transaction is not final yet',
        errorCode: 'TRANSACTION_NOT_FINAL',
        statusCode: 400,
        errorData: {
          chainId: 31337,
          transactionId: receipt.transactionHash,
          blockNumber: receipt.blockNumber.toString(),
          finalBlockNumber: (receipt.blockNumber - 2n).toString(),
        },
      });
      await a.mine(1);
      await refused(DEPOSITS, request, 'TRANSACTION_NOT_FINAL', deep);
      await a.mine(1);
      const attestation = await attested(DEPOSITS, request, deep);
      expect(attestation.message.result).toMatchObject({ depositId: orderId, amount: '3000' });
    } finally {
      await deep.stop();
    }
  });

  it("a chain whose RPC is down answers CHAIN_RPC_UNAVAILABLE; the other chain's attestations still work", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const halfBlind = await startOracle({ env: { DEVNET_A_RPC_URL: a.rpcUrl, DEVNET_B_RPC_URL: closed } });
    try {
      const onB = await factsB.depositNative(orderIdOf('deposit-on-b'), 1_000n);
      const onA = await factsA.depositNative(orderIdOf('deposit-on-a'), 1_000n);
      const requestB = { chainId: 31338, transactionId: onB.transactionHash };
      const refusal = await refused(DEPOSITS, requestB, 'CHAIN_RPC_UNAVAILABLE', halfBlind);
      expect(refusal.message).toMatch(/^Chain 31338's RPC failed: /);
      expect(refusal.errorData).toEqual({ chainId: 31338, reason: 'rpc-failed' });
      await attested(DEPOSITS, { chainId: 31337, transactionId: onA.transactionHash }, halfBlind);
      // The fact is there: an instance that can read 31338 attests it.
      await attested(DEPOSITS, requestB);
    } finally {
      await halfBlind.stop();
    }
  });
});

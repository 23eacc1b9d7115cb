import { type Hex } from 'viem';
import { NATIVE, orderIdOf } from '../../support/oracle-facts.js';
import { postJson, type RunningOracle, startOracle } from '../../support/oracle.js';
import { freePort } from '../../support/process.js';

const DEPOSITS = '/attestations/depository-deposits/v1';
const WITHDRAWALS = '/attestations/depository-withdrawals/v1';
const FILLS = '/attestations/solver-fills/v1';
const REFUNDS = '/attestations/solver-refunds/v1';
const UNKNOWN_TX = `0x${'ee'.repeat(32)}` as Hex;

/**
 * Requests the oracle refuses before it reads any chain: bad input, chains it does not serve or cannot read, VM
 * families without backend, the withdrawal-address flow. Both devnet RPCs point at a closed port, so a request that
 * did reach a chain would answer CHAIN_RPC_UNAVAILABLE instead of the code asserted.
 */
describe('oracle requests refused before any chain read', () => {
  let sut: RunningOracle;

  beforeAll(async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    sut = await startOracle({ env: { DEVNET_A_RPC_URL: closed, DEVNET_B_RPC_URL: closed } });
  });
  afterAll(() => sut?.stop());

  async function refused(path: string, body: object, errorCode: string) {
    const answer = await postJson<{ message: string; errorCode: string; errorData?: unknown }>(
      sut.url,
      path,
      body,
    );
    expect({ status: answer.status, errorCode: answer.body.errorCode }).toEqual({ status: 400, errorCode });
    return answer.body;
  }

  const payment = (transactionId: Hex, orderId: Hex, currency: string, minimumAmount: bigint) => ({
    chainId: 31337,
    transactionId,
    orderId,
    recipient: `0x${'c3'.repeat(20)}`,
    currency,
    minimumAmount: minimumAmount.toString(),
  });

  it.each([
    ['an empty body', DEPOSITS, {}],
    ['a short transaction hash', DEPOSITS, { chainId: 31337, transactionId: '0x1234' }],
    ['a chain id that is no integer', WITHDRAWALS, { chainId: 'devnet', transactionId: UNKNOWN_TX }],
    [
      'a fill without order id',
      FILLS,
      { ...payment(UNKNOWN_TX, orderIdOf('x'), NATIVE, 1n), orderId: undefined },
    ],
    [
      'a recipient that is no address',
      FILLS,
      { ...payment(UNKNOWN_TX, orderIdOf('x'), NATIVE, 1n), recipient: '0xzz' },
    ],
    [
      'a minimum with decimals',
      REFUNDS,
      { ...payment(UNKNOWN_TX, orderIdOf('x'), NATIVE, 1n), minimumAmount: '1.5' },
    ],
    [
      'requestPeerSignatures as a string',
      DEPOSITS,
      { chainId: 1, transactionId: UNKNOWN_TX, requestPeerSignatures: 'yes' },
    ],
  ])('%s is INVALID_INPUT', async (_name, path, body) => {
    const { message } = await refused(path, body, 'INVALID_INPUT');
    expect(message).toMatch(/^Invalid input: /);
  });

  // An optional field is absent or of its type: `null` is refused as input, never read as "any log" or "any deposit".
  it.each([
    ['logIndex', 'a deposit', DEPOSITS],
    ['logIndex', 'a withdrawal', WITHDRAWALS],
    ['depositId', 'a deposit', DEPOSITS],
  ])('a %s of null for %s is INVALID_INPUT, not a question about any of them', async (field, _name, path) => {
    const answer = await postJson(sut.url, path, {
      chainId: 31337,
      transactionId: UNKNOWN_TX,
      [field]: null,
    });

    expect(answer).toEqual({
      status: 400,
      body: {
        message: expect.stringMatching(new RegExp(`^Invalid input: ${field}: `)),
        errorCode: 'INVALID_INPUT',
        statusCode: 400,
        errorData: [{ field, problems: expect.arrayContaining([expect.any(String)]) }],
      },
    });
  });

  it("a chain not configured is UNSUPPORTED_CHAIN, pointing at the oracle's own chain list", async () => {
    const { message } = await refused(
      DEPOSITS,
      { chainId: 4242, transactionId: UNKNOWN_TX },
      'UNSUPPORTED_CHAIN',
    );
    expect(message).toBe('Chain 4242 is not loaded here; GET /chains/v1 lists them');
  });

  it.each([
    [792703809, 'svm-vm'],
    [1337, 'perpsa-vm'],
    [3586256, 'perpsb-vm'],
  ])('chain %d, a VM family without backend, is VM_NOT_CONFIGURED (%s)', async (chainId, vmType) => {
    const refusal = await refused(DEPOSITS, { chainId, transactionId: UNKNOWN_TX }, 'VM_NOT_CONFIGURED');
    expect(refusal.errorData).toEqual({ chainId, vmType });
  });

  it('an EVM chain without RPC here is CHAIN_RPC_UNAVAILABLE, naming the variable to set', async () => {
    const refusal = await refused(
      FILLS,
      { ...payment(UNKNOWN_TX, orderIdOf('x'), NATIVE, 1n), chainId: 999 },
      'CHAIN_RPC_UNAVAILABLE',
    );
    expect(refusal.message).toBe('Chain 999 has no RPC configured here (set RPC_URL_999)');
    expect(refusal.errorData).toEqual({ chainId: 999, reason: 'not-configured' });
  });

  it.each(['/attestations/withdrawal-initiation/v1', '/attestations/withdrawal-initiated/v1'])(
    '%s validates, then answers WITHDRAWAL_FLOW_UNAVAILABLE',
    async (path) => {
      await refused(path, { chainId: 31337 }, 'INVALID_INPUT');
      const refusal = await refused(
        path,
        { chainId: 31337, transactionId: UNKNOWN_TX },
        'WITHDRAWAL_FLOW_UNAVAILABLE',
      );
      expect(refusal.errorData).toEqual({ chainId: 31337 });
    },
  );
});

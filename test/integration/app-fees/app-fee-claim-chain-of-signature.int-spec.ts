import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { readArtifact } from '../../../scripts/devnet/deploy-devnet.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestStatus,
  settlementEnv,
  waitFor,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { deposit, type Quote } from '../settlement/settlement-support.js';

/** Hardhat's account #6, whose nonce 0 is unused on both devnets: the same contract address on each chain. */
const DEPLOYER = privateKeyToAccount('0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e');
const OWNER = privateKeyToAccount(`0x${'b1'.repeat(32)}`);
const ATTACKER = privateKeyToAccount(`0x${'b2'.repeat(32)}`);
const AMOUNT = 100_000_000n; // 100 USDC bridged; 1% app fee = 1 USDC

interface ClaimStep {
  requestId: Hex;
}

/**
 * Attack: a contract claim address is not the same account on every chain. The integrator's wallet earns its fees
 * at address X on the base chain (31338, owner OWNER); on 31337 the attacker controls a contract at the very same
 * address (the deployer's nonce replayed there, as with counterfactual or replayed deployments). The attacker opens
 * a claim of X payable on 31337 to itself and signs it through its own wallet there: the balance must not move.
 * Balances live on the base chain, so a claim address's signature is checked there, whatever the payout chain.
 */
describe('app-fee claims: a contract claim address is verified on the base chain', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;
  let wallet: Address;

  const available = async (address: string): Promise<bigint> => {
    await waitForProjections(app);
    const response = await app.http.inject({ method: 'GET', url: `/app-fees/${address}/balances` });
    return BigInt((response.json() as { balances: { amount: string }[] }).balances[0].amount);
  };
  const open = async (body: Record<string, unknown>, address: string = wallet): Promise<Hex> => {
    const { code, body: answer } = await postJson(app, `/app-fees/${address}/claim`, body);
    expect(code).toBe(200);
    return (answer as { steps: ClaimStep[] }).steps[0].requestId;
  };
  const submit = async (claimId: Hex, signature: Hex) => {
    await waitForProjections(app);
    return postJson(app, `/execute/permits?signature=${signature}`, { kind: 'claim', requestId: claimId });
  };

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    const artifact = readArtifact('SmartWallet');
    const deployOn = async (chainId: number, owner: Address): Promise<Address> => {
      const hash = await clients.wallet(chainId).deployContract({
        account: DEPLOYER,
        chain: null,
        abi: artifact.abi,
        bytecode: artifact.bytecode,
        args: [owner],
      });
      return (await clients.reader(chainId).waitForTransactionReceipt({ hash })).contractAddress!;
    };
    wallet = await deployOn(b.chainId, OWNER.address);
    expect(await deployOn(a.chainId, ATTACKER.address)).toBe(wallet);
    app = await startTestApp(settlementEnv(a, b));

    const { code, body } = await postJson(app, '/quote/v2', {
      user: a.accounts.user.address,
      recipient: a.accounts.user.address,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      originCurrency: a.deployment.usdc,
      destinationCurrency: b.deployment.usdc,
      amount: AMOUNT.toString(),
      tradeType: 'EXACT_INPUT',
      appFees: [
        { recipient: wallet, fee: '100' },
        // A contract with no isValidSignature (TestWETH: a receive() but no fallback): the call reverts.
        { recipient: b.deployment.weth, fee: '100' },
      ],
    });
    expect(code).toBe(200);
    const quote = body as Quote;
    await deposit(clients, a, quote);
    await waitFor(
      async () => (await requestStatus(app, quote.protocol.v2.orderId)).status === 'success',
      'success',
      60_000,
    );
    await waitFor(async () => (await available(wallet)) > 0n, 'accrual', 30_000);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("the attacker's same-address wallet on another chain cannot claim the integrator's balance", async () => {
    expect(await available(wallet)).toBe(1_000_000n);
    const claimId = await open({
      chainId: a.chainId,
      currency: a.deployment.usdc,
      recipient: ATTACKER.address,
    });
    const stolen = await submit(claimId, await ATTACKER.signMessage({ message: { raw: claimId } }));
    expect(stolen.code).toBe(400);
    expect(stolen.body).toMatchObject({ errorCode: 'INVALID_SIGNATURE' });
    expect(await clients.balanceOf(a.chainId, a.deployment.usdc, ATTACKER.address)).toBe(0n);
    expect(await available(wallet)).toBe(1_000_000n);
  });

  it('the owner on the base chain still claims, also paid out on the other chain', async () => {
    const claimId = await open({ chainId: a.chainId, currency: a.deployment.usdc, recipient: OWNER.address });
    const paid = await submit(claimId, await OWNER.signMessage({ message: { raw: claimId } }));
    expect(paid.code).toBe(200);
    // 1 USDC less the 0.10 USD fee for a payout off the base chain.
    expect(await clients.balanceOf(a.chainId, a.deployment.usdc, OWNER.address)).toBe(900_000n);
    expect(await available(wallet)).toBe(0n);
  });

  it('a claim address whose isValidSignature reverts: 400 INVALID_SIGNATURE, nothing moves', async () => {
    const contract = b.deployment.weth;
    expect(await available(contract)).toBe(1_000_000n);
    const claimId = await open(
      { chainId: b.chainId, currency: b.deployment.usdc, recipient: ATTACKER.address },
      contract,
    );
    const refused = await submit(claimId, await ATTACKER.signMessage({ message: { raw: claimId } }));
    expect(refused.code).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'INVALID_SIGNATURE' });
    expect(await available(contract)).toBe(1_000_000n);
  });
});

import { type Address, encodeFunctionData, type Hex, keccak256, parseEther, toHex, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { depositoryAbi } from '../../../src/chains/abi/depository.js';
import { erc20Abi } from '../../../src/chains/abi/erc20.js';
import {
  depositAddressFactoryAbi,
  depositReceiverAbi,
} from '../../../src/chains/abi/deposit-address-factory.js';
import { deriveDepositAddress } from '../../../src/quotes/domain/steps/deposit-address.js';
import { ChainClients } from '../../support/chain-clients.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';

const ETH = zeroAddress;
const orderId = (label: string): Hex => keccak256(toHex(label));

/**
 * FerryDepositAddressFactory and its receivers on a real local chain: the quoted address (computed off chain from the
 * receiver's real init code) is where the factory deploys; a plain transfer lands there; only the solver sweeps
 * (into the depository, with the order id) or gives back; an attacker can neither sweep, redirect, recover nor call
 * the receiver; the recovery address pulls what was not swept, and a sweep after it reverts (nothing credited twice).
 */
describe('FerryDepositAddressFactory', () => {
  let chain: Devnet;
  let clients: ChainClients;
  let factory: Address;
  let depository: Address;
  const attackerKey = `0x${'a7'.repeat(32)}` as Hex;
  const attacker = privateKeyToAccount(attackerKey).address;
  const recoveryKey = `0x${'c9'.repeat(32)}` as Hex;
  const recovery = privateKeyToAccount(recoveryKey).address;

  const balance = (owner: Address) => clients.balanceOf(chain.chainId, ETH, owner);
  const addressFor = (label: string, type: 'strict' | 'open' = 'strict', recoveryAddress = recovery) =>
    deriveDepositAddress({
      requestId: orderId(label),
      factory,
      type,
      user: chain.accounts.user.address,
      recoveryAddress,
    });
  const call = (key: Hex, data: Hex) => clients.send(chain.chainId, key, factory, data);
  const expectRevert = async (key: Hex, data: Hex, to: Address = factory) => {
    await expect(clients.send(chain.chainId, key, to, data)).rejects.toThrow();
  };
  const sweep = (label: string, amount: bigint, depositor: Address, mode = 0) =>
    encodeFunctionData({
      abi: depositAddressFactoryAbi,
      functionName: 'sweep',
      args: [orderId(label), mode, recovery, depositor, amount],
    });
  const fund = async (to: Address, amount: bigint) =>
    clients.send(chain.chainId, chain.accounts.user.privateKey, to, undefined, amount);

  beforeAll(async () => {
    chain = await startDevnet({ chainId: 31337 });
    clients = new ChainClients([chain]);
    factory = chain.deployment.depositAddressFactory;
    depository = chain.deployment.depository;
    // Gas money for the attacker and the recovery address (a plain transfer, as anyone could).
    await fund(attacker, parseEther('1'));
    await fund(recovery, parseEther('1'));
  }, 120_000);
  afterAll(() => chain?.stop());

  it('is deployed at deployer nonce 7, owned by the solver, sweeping into the depository', async () => {
    const reader = clients.reader(chain.chainId);
    expect(factory).toBe('0xa513E6E4b8f2a923D98304ec87F64353C4D5C853');
    const read = (functionName: 'owner' | 'depository') =>
      reader.readContract({ address: factory, abi: depositAddressFactoryAbi, functionName });
    expect(await read('owner')).toBe(chain.accounts.solver.address);
    expect(await read('depository')).toBe(depository);
  });

  it('deploys the receiver exactly at the address the quote computes, and sweeps it into the depository with the order id', async () => {
    const address = addressFor('sweep');
    const reader = clients.reader(chain.chainId);
    expect(
      await reader.readContract({
        address: factory,
        abi: depositAddressFactoryAbi,
        functionName: 'addressOf',
        args: [orderId('sweep'), 0, recovery],
      }),
    ).toBe(address);
    const transfer = await fund(address, parseEther('0.5'));
    expect(transfer.status).toBe('success'); // no code there yet: a plain transfer
    const before = await balance(depository);
    const receipt = await call(
      chain.accounts.solver.privateKey,
      sweep('sweep', parseEther('0.5'), chain.accounts.user.address),
    );
    expect(receipt.status).toBe('success');
    expect(await reader.getCode({ address })).not.toBe(undefined);
    expect(await balance(address)).toBe(0n);
    expect((await balance(depository)) - before).toBe(parseEther('0.5'));
    const logs = await reader.getContractEvents({
      address: depository,
      abi: depositoryAbi,
      eventName: 'NativeDeposit',
      fromBlock: receipt.blockNumber,
      toBlock: receipt.blockNumber,
    });
    expect(logs.map((log) => log.args)).toEqual([
      { id: orderId('sweep'), depositor: chain.accounts.user.address, amount: parseEther('0.5') },
    ]);
    // A second transfer to a deployed receiver is accepted too (receive), and can be given back.
    await fund(address, parseEther('0.1'));
    const refundTo = privateKeyToAccount(`0x${'d1'.repeat(32)}` as Hex).address;
    await call(
      chain.accounts.solver.privateKey,
      encodeFunctionData({
        abi: depositAddressFactoryAbi,
        functionName: 'giveBack',
        args: [orderId('sweep'), 0, recovery, refundTo, parseEther('0.1')],
      }),
    );
    expect(await balance(refundTo)).toBe(parseEther('0.1'));
  });

  it("refuses an attacker's sweep or giveBack of someone else's address, and its direct calls to the receiver", async () => {
    const address = addressFor('victim');
    await fund(address, parseEther('0.3'));
    await expectRevert(attackerKey, sweep('victim', parseEther('0.3'), attacker));
    await expectRevert(
      attackerKey,
      encodeFunctionData({
        abi: depositAddressFactoryAbi,
        functionName: 'giveBack',
        args: [orderId('victim'), 0, recovery, attacker, parseEther('0.3')],
      }),
    );
    // Deploy it (by the solver, with a zero-value-safe giveBack of 1 wei to the recovery), then call it directly.
    await call(
      chain.accounts.solver.privateKey,
      encodeFunctionData({
        abi: depositAddressFactoryAbi,
        functionName: 'giveBack',
        args: [orderId('victim'), 0, recovery, recovery, 1n],
      }),
    );
    await expectRevert(
      attackerKey,
      encodeFunctionData({
        abi: depositReceiverAbi,
        functionName: 'forward',
        args: [attacker, parseEther('0.1'), '0x'],
      }),
      address,
    );
    expect(await balance(address)).toBe(parseEther('0.3') - 1n);
  });

  it("cannot recover someone else's funds: the salt names the caller, so an attacker's recover finds an empty receiver", async () => {
    const address = addressFor('recover-attack');
    await fund(address, parseEther('0.2'));
    const attackerBefore = await balance(attacker);
    await expectRevert(
      attackerKey,
      encodeFunctionData({
        abi: depositAddressFactoryAbi,
        functionName: 'recover',
        args: [orderId('recover-attack'), 0],
      }),
    );
    expect(await balance(address)).toBe(parseEther('0.2'));
    expect(await balance(attacker)).toBeLessThanOrEqual(attackerBefore);
  });

  it('lets the recovery address pull unswept funds; a sweep racing after it reverts, so nothing is credited', async () => {
    const address = addressFor('recover', 'open');
    await fund(address, parseEther('0.4'));
    const before = await balance(recovery);
    const receipt = await call(
      recoveryKey,
      encodeFunctionData({
        abi: depositAddressFactoryAbi,
        functionName: 'recover',
        args: [orderId('recover'), 1],
      }),
    );
    expect(receipt.status).toBe('success');
    const gas = receipt.gasUsed * receipt.effectiveGasPrice;
    expect((await balance(recovery)) - before + gas).toBe(parseEther('0.4'));
    expect(await balance(address)).toBe(0n);
    // The solver's sweep of the same funds now fails: no depository event, so no fill can follow.
    const depositoryBefore = await balance(depository);
    await expectRevert(
      chain.accounts.solver.privateKey,
      sweep('recover', parseEther('0.4'), chain.accounts.user.address, 1),
    );
    expect(await balance(depository)).toBe(depositoryBefore);
  });

  it('after a sweep, the recovery address gets nothing back: the funds are in the depository', async () => {
    const address = addressFor('swept-then-recover');
    await fund(address, parseEther('0.25'));
    await call(
      chain.accounts.solver.privateKey,
      sweep('swept-then-recover', parseEther('0.25'), chain.accounts.user.address),
    );
    await expectRevert(
      recoveryKey,
      encodeFunctionData({
        abi: depositAddressFactoryAbi,
        functionName: 'recover',
        args: [orderId('swept-then-recover'), 0],
      }),
    );
  });

  it('gives back another currency (USDC sent by mistake) only on the solver’s call; the recovery address can pull it', async () => {
    const usdc = chain.deployment.usdc;
    const reader = clients.reader(chain.chainId);
    const usdcOf = (owner: Address) =>
      reader.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
    const sendUsdc = (to: Address, amount: bigint) =>
      clients.send(
        chain.chainId,
        chain.accounts.user.privateKey,
        usdc,
        encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
      );
    const address = addressFor('usdc');
    await sendUsdc(address, 7_000_000n);
    const giveBackToken = (to: Address, amount: bigint) =>
      encodeFunctionData({
        abi: depositAddressFactoryAbi,
        functionName: 'giveBackToken',
        args: [orderId('usdc'), 0, recovery, usdc, to, amount],
      });
    await expectRevert(attackerKey, giveBackToken(attacker, 7_000_000n));
    const refundTo = privateKeyToAccount(`0x${'d2'.repeat(32)}` as Hex).address;
    await call(chain.accounts.solver.privateKey, giveBackToken(refundTo, 5_000_000n));
    expect(await usdcOf(refundTo)).toBe(5_000_000n);
    // An attacker's recoverToken names its own (empty) receiver; the recovery address gets the rest.
    const recoverToken = encodeFunctionData({
      abi: depositAddressFactoryAbi,
      functionName: 'recoverToken',
      args: [orderId('usdc'), 0, usdc],
    });
    await expectRevert(attackerKey, recoverToken);
    await call(recoveryKey, recoverToken);
    expect(await usdcOf(recovery)).toBe(2_000_000n);
    expect(await usdcOf(address)).toBe(0n);
  });
});

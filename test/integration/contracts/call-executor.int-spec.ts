import {
  type Address,
  encodeFunctionData,
  type Hex,
  keccak256,
  maxUint256,
  parseAbi,
  parseEther,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { callExecutorAbi } from '../../../src/chains/abi/call-executor.js';
import { erc20Abi } from '../../../src/chains/abi/erc20.js';
import { sandboxOf } from '../../../src/solver/call-execution.js';
import { ChainClients } from '../../support/chain-clients.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';

const ETH = '0x0000000000000000000000000000000000000000' as Address;
const orderId = (label: string): Hex => keccak256(toHex(label));

/**
 * FerryCallExecutor on a real local chain, played by an attacker writing the destination calls: the calls get the
 * output and nothing else; the solver's balance and allowance are out of their reach; whatever is left, or the whole
 * output when the calls fail, goes to the recipient; nothing stays in the executor or its sandbox.
 */
describe('FerryCallExecutor', () => {
  let chain: Devnet;
  let clients: ChainClients;
  let executor: Address;
  let sandbox: Address;
  let usdc: Address;
  const attacker = privateKeyToAccount(`0x${'a7'.repeat(32)}` as Hex).address;
  const recipient = privateKeyToAccount(`0x${'b8'.repeat(32)}` as Hex).address;

  const fill = (
    token: Address,
    amount: bigint,
    calls: { to: Address; value: bigint; data: Hex }[],
    value = 0n,
    label = 'x',
  ) =>
    clients.send(
      chain.chainId,
      chain.accounts.solver.privateKey,
      executor,
      encodeFunctionData({
        abi: callExecutorAbi,
        functionName: 'fill',
        args: [orderId(label), token, amount, recipient, calls],
      }),
      value,
    );
  const balance = (currency: Address, owner: Address) => clients.balanceOf(chain.chainId, currency, owner);
  const transfer = (to: Address, amount: bigint) =>
    encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });

  beforeAll(async () => {
    chain = await startDevnet({ chainId: 31338 });
    clients = new ChainClients([chain]);
    executor = chain.deployment.callExecutor;
    sandbox = sandboxOf(executor);
    usdc = chain.deployment.usdc;
    // The solver lets the executor pull USDC: the executor only ever pulls what the solver's own fill names.
    await clients.send(
      chain.chainId,
      chain.accounts.solver.privateKey,
      usdc,
      encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [executor, maxUint256] }),
    );
  }, 120_000);
  afterAll(() => chain?.stop());

  it('is deployed where the configs say, with the solver and its sandbox', async () => {
    const reader = clients.reader(chain.chainId);
    expect(executor).toBe('0x0165878A594ca255338adfa4d48449f69242Eb8F');
    expect(
      await reader.readContract({ address: executor, abi: callExecutorAbi, functionName: 'solver' }),
    ).toBe(chain.accounts.solver.address);
    expect(
      await reader.readContract({ address: executor, abi: callExecutorAbi, functionName: 'sandbox' }),
    ).toBe(sandbox);
  });

  it('runs the calls with the output; the rest goes to the recipient; nothing stays behind', async () => {
    const before = await balance(ETH, attacker);
    const receipt = await fill(
      ETH,
      parseEther('1'),
      [{ to: attacker, value: parseEther('0.25'), data: '0x' }],
      parseEther('1'),
    );
    expect(receipt.status).toBe('success');
    expect((await balance(ETH, attacker)) - before).toBe(parseEther('0.25'));
    expect(await balance(ETH, recipient)).toBe(parseEther('0.75'));
    expect(await balance(ETH, sandbox)).toBe(0n);
    expect(await balance(ETH, executor)).toBe(0n);
  });

  it("cannot pull the solver's tokens: a transferFrom(solver, attacker) call fails, is undone, the recipient gets the output", async () => {
    const solverBefore = await balance(usdc, chain.accounts.solver.address);
    const recipientBefore = await balance(usdc, recipient);
    const steal = encodeFunctionData({
      abi: parseAbi(['function transferFrom(address from, address to, uint256 amount) returns (bool)']),
      functionName: 'transferFrom',
      args: [chain.accounts.solver.address, attacker, 1_000_000n],
    });
    const receipt = await fill(usdc, 5_000_000n, [
      { to: usdc, value: 0n, data: transfer(attacker, 1n) },
      { to: usdc, value: 0n, data: steal },
    ]);
    expect(receipt.status).toBe('success');
    expect(await balance(usdc, attacker)).toBe(0n); // the first call was undone with the second
    expect(await balance(usdc, recipient)).toBe(recipientBefore + 5_000_000n);
    expect(await balance(usdc, chain.accounts.solver.address)).toBe(solverBefore - 5_000_000n);
    expect(await balance(usdc, sandbox)).toBe(0n);
  });

  it('cannot spend more native value than the output: the calls fail, the recipient gets the output', async () => {
    const solverBefore = await balance(ETH, chain.accounts.solver.address);
    const recipientBefore = await balance(ETH, recipient);
    const receipt = await fill(
      ETH,
      parseEther('0.1'),
      [{ to: attacker, value: parseEther('5'), data: '0x' }],
      parseEther('0.1'),
    );
    expect(receipt.status).toBe('success');
    expect(await balance(ETH, recipient)).toBe(recipientBefore + parseEther('0.1'));
    const spent = solverBefore - (await balance(ETH, chain.accounts.solver.address));
    expect(spent).toBeLessThan(parseEther('0.1') + parseEther('0.01')); // the output and gas, nothing more
  });

  it('refuses a stranger, a re-entering call, and a value that is not the output', async () => {
    const call = encodeFunctionData({
      abi: callExecutorAbi,
      functionName: 'fill',
      args: [orderId('stranger'), ETH, 1n, attacker, []],
    });
    await expect(
      clients.send(chain.chainId, chain.accounts.user.privateKey, executor, call, 1n),
    ).rejects.toThrow(/NotSolver|revert/);
    const run = encodeFunctionData({
      abi: [
        {
          type: 'function',
          name: 'run',
          stateMutability: 'payable',
          inputs: [
            { name: 'orderId', type: 'bytes32' },
            { name: 'token', type: 'address' },
            { name: 'recipient', type: 'address' },
            {
              name: 'calls',
              type: 'tuple[]',
              components: [
                { name: 'to', type: 'address' },
                { name: 'value', type: 'uint256' },
                { name: 'data', type: 'bytes' },
              ],
            },
          ],
          outputs: [{ type: 'bool' }],
        },
      ],
      functionName: 'run',
      args: [orderId('direct'), usdc, attacker, []],
    });
    await expect(clients.send(chain.chainId, chain.accounts.user.privateKey, sandbox, run)).rejects.toThrow(
      /NotExecutor|revert/,
    );
    // A call that re-enters fill (as the sandbox, not the solver) fails, so the calls are undone.
    const recipientBefore = await balance(ETH, recipient);
    const reenter = await fill(ETH, 1000n, [{ to: executor, value: 0n, data: call }], 1000n, 'reenter');
    expect(reenter.status).toBe('success');
    expect(await balance(ETH, recipient)).toBe(recipientBefore + 1000n);
    await expect(fill(ETH, 1000n, [], 999n)).rejects.toThrow(/WrongValue|revert/);
  });
});

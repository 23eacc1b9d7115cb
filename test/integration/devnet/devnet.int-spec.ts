import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  hashDomain,
  type Hex,
  http,
  keccak256,
  parseEther,
  parseEventLogs,
  parseSignature,
  type PublicClient,
  toHex,
  zeroAddress,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { depositoryAbi, depositoryAdminAbi } from '../../../src/chains/abi/depository.js';
import { eip3009Abi } from '../../../src/chains/abi/eip3009.js';
import { erc20Abi } from '../../../src/chains/abi/erc20.js';
import {
  buildPermitTypedData,
  type PermitParameters,
  permitDepositCalldata,
  permitNonce,
} from '../../../src/quotes/domain/steps/permit.js';
import { readArtifact } from '../../../scripts/devnet/deploy-devnet.js';
import { devnetPriceFeedAddresses } from '../../../scripts/devnet/deploy-price-feeds.js';
import { type Devnet, startDevnet, startDevnets } from '../../support/devnet.js';
import { freePort } from '../../support/process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const errorsOf = (name: string) => readArtifact(name).abi.filter((item) => item.type === 'error');
/** The depository's ABI plus the token's errors, so a revert from either is decoded by name. */
const depository = [...depositoryAbi, ...depositoryAdminAbi, ...errorsOf('TestUSDC')] as const;
const smartWalletAbi = readArtifact('SmartWallet').abi;
const orderId = (label: string): Hex => keccak256(toHex(label));

interface ConfigChain {
  id: number;
  depository: string;
  solver: string;
  currencies: { symbol: string; address: string; eip712?: { name: string; version: string } }[];
}
const configChains = (environment: string): ConfigChain[] =>
  JSON.parse(readFileSync(join(ROOT, 'configs', `chains.${environment}.json`), 'utf8')).chains;

/** Viem clients of one devnet: a reader and a wallet per account role. */
function clientsOf(devnet: Devnet) {
  const chain = defineChain({
    id: devnet.chainId,
    name: `devnet ${devnet.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [devnet.rpcUrl] } },
  });
  // No retries: a revert is an answer here, not a transient failure to retry with back-off.
  const transport = http(devnet.rpcUrl, { retryCount: 0 });
  const wallet = (privateKey: Hex) =>
    createWalletClient({ account: privateKeyToAccount(privateKey), chain, transport });
  return {
    reader: createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 }) as PublicClient,
    user: wallet(devnet.accounts.user.privateKey),
    solver: wallet(devnet.accounts.solver.privateKey),
    relayer: wallet(devnet.accounts.relayer.privateKey),
    deployer: wallet(devnet.accounts.deployer.privateKey),
  };
}

describe('local devnets (npm run devnet, test/support/devnet.ts)', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ReturnType<typeof clientsOf>;

  const receiptOf = async (hash: Hex) => {
    const receipt = await clients.reader.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  const usdcBalance = (owner: Address) =>
    clients.reader.readContract({
      address: a.deployment.usdc,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    });

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = clientsOf(a);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('serves chains 31337 and 31338 over JSON-RPC on loopback', async () => {
    expect([a.chainId, b.chainId]).toEqual([31337, 31338]);
    for (const devnet of [a, b]) {
      expect(devnet.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await clientsOf(devnet).reader.getChainId()).toBe(devnet.chainId);
    }
  });

  it('deploys every contract at the address the config files list, on both chains', async () => {
    for (const devnet of [a, b]) {
      const reader = clientsOf(devnet).reader;
      const { priceFeeds, oracleVerifier, ...contracts } = devnet.deployment;
      const hubOnly = [...Object.values(priceFeeds ?? {}), ...(oracleVerifier ? [oracleVerifier] : [])];
      for (const address of [...Object.values(contracts), ...hubOnly]) {
        expect((await reader.getCode({ address }))?.length).toBeGreaterThan(2);
      }
      for (const environment of ['development', 'test']) {
        const chain = configChains(environment).find((entry) => entry.id === devnet.chainId)!;
        const currency = (symbol: string) => chain.currencies.find((entry) => entry.symbol === symbol)!;
        expect(devnet.deployment.depository).toBe(chain.depository);
        expect(devnet.deployment.usdc).toBe(currency('USDC').address);
        expect(devnet.deployment.weth).toBe(currency('WETH').address);
        expect(devnet.accounts.solver.address).toBe(chain.solver);
      }
    }
    expect(a.deployment.smartWallet).toBe('0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9');
  });

  it('deploys the price feeds on 31337 only, from account #5, at the addresses the app configs list', async () => {
    expect(b.deployment.priceFeeds).toBeNull();
    expect(a.deployment.priceFeeds).toEqual(devnetPriceFeedAddresses());
    for (const environment of ['development', 'test']) {
      const app = JSON.parse(readFileSync(join(ROOT, 'configs', `app.${environment}.json`), 'utf8'));
      const feeds = app.quotes.priceSource.feeds as Record<string, { chainId: number; address: string }>;
      for (const [asset, address] of Object.entries(a.deployment.priceFeeds!)) {
        expect(feeds[asset]).toMatchObject({ chainId: 31337, address });
      }
    }
  });

  it('gives TestUSDC the token metadata and EIP-712 domain the configs declare', async () => {
    const usdc = readArtifact('TestUSDC').abi;
    const read = (functionName: string) =>
      clients.reader.readContract({ address: a.deployment.usdc, abi: usdc, functionName });
    expect([await read('name'), await read('symbol'), await read('decimals')]).toEqual([
      'USD Coin',
      'USDC',
      6,
    ]);
    const { eip712 } = configChains('test')
      .find((entry) => entry.id === a.chainId)!
      .currencies.find((entry) => entry.symbol === 'USDC')!;
    const domain = { ...eip712!, chainId: BigInt(a.chainId), verifyingContract: a.deployment.usdc };
    expect(await read('DOMAIN_SEPARATOR')).toBe(
      hashDomain({
        domain,
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
        },
      }),
    );
  });

  it('funds the solver (1,000,000 USDC), the user (10,000 USDC) and the relayer (ETH) on both chains', async () => {
    for (const devnet of [a, b]) {
      const reader = clientsOf(devnet).reader;
      const usdc = (owner: Address) =>
        reader.readContract({
          address: devnet.deployment.usdc,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [owner],
        });
      expect(await usdc(devnet.accounts.solver.address)).toBe(1_000_000_000_000n);
      expect(await usdc(devnet.accounts.user.address)).toBe(10_000_000_000n);
      for (const role of ['solver', 'user', 'relayer'] as const) {
        expect(await reader.getBalance({ address: devnet.accounts[role].address })).toBeGreaterThan(
          parseEther('1000'),
        );
      }
      const owner = await reader.readContract({
        address: devnet.deployment.depository,
        abi: depositoryAdminAbi,
        functionName: 'owner',
      });
      expect(owner).toBe(devnet.accounts.solver.address);
    }
  });

  it('records a native deposit: NativeDeposit carries the order id, the depositor and msg.value', async () => {
    const id = orderId('native');
    const hash = await clients.user.writeContract({
      address: a.deployment.depository,
      abi: depositoryAbi,
      functionName: 'depositNative',
      args: [a.accounts.user.address, id],
      value: parseEther('0.5'),
    });
    const logs = parseEventLogs({ abi: depositoryAbi, logs: (await receiptOf(hash)).logs });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      eventName: 'NativeDeposit',
      address: a.deployment.depository.toLowerCase(),
      args: { id, depositor: a.accounts.user.address, amount: parseEther('0.5') },
    });
    expect(await clients.reader.getBalance({ address: a.deployment.depository })).toBe(parseEther('0.5'));
  });

  it('records an ERC-20 deposit after approve: Erc20Deposit carries id, depositor, token and amount', async () => {
    const id = orderId('erc20');
    const before = await usdcBalance(a.accounts.user.address);
    await receiptOf(
      await clients.user.writeContract({
        address: a.deployment.usdc,
        abi: erc20Abi,
        functionName: 'approve',
        args: [a.deployment.depository, 25_000_000n],
      }),
    );
    const hash = await clients.user.writeContract({
      address: a.deployment.depository,
      abi: depositoryAbi,
      functionName: 'depositErc20',
      args: [a.accounts.user.address, a.deployment.usdc, 25_000_000n, id],
    });
    const logs = parseEventLogs({ abi: depositoryAbi, logs: (await receiptOf(hash)).logs });
    expect(logs.map((log) => [log.eventName, log.args])).toEqual([
      [
        'Erc20Deposit',
        { id, depositor: a.accounts.user.address, token: a.deployment.usdc, amount: 25_000_000n },
      ],
    ]);
    expect(before - (await usdcBalance(a.accounts.user.address))).toBe(25_000_000n);
    expect(await usdcBalance(a.deployment.depository)).toBe(25_000_000n);
  });

  it('credits the sender when the depositor is the zero address', async () => {
    const nativeHash = await clients.user.writeContract({
      address: a.deployment.depository,
      abi: depositoryAbi,
      functionName: 'depositNative',
      args: [zeroAddress, orderId('zero-native')],
      value: 1n,
    });
    await receiptOf(
      await clients.user.writeContract({
        address: a.deployment.usdc,
        abi: erc20Abi,
        functionName: 'approve',
        args: [a.deployment.depository, 1n],
      }),
    );
    const erc20Hash = await clients.user.writeContract({
      address: a.deployment.depository,
      abi: depositoryAbi,
      functionName: 'depositErc20',
      args: [zeroAddress, a.deployment.usdc, 1n, orderId('zero-erc20')],
    });
    for (const hash of [nativeHash, erc20Hash]) {
      const [log] = parseEventLogs({ abi: depositoryAbi, logs: (await receiptOf(hash)).logs });
      expect(log.args.depositor).toBe(a.accounts.user.address);
    }
  });

  it('rejects zero amounts, ERC-20 deposits without an allowance, and tokens without code', async () => {
    const simulate = (functionName: 'depositNative' | 'depositErc20', args: readonly unknown[]) =>
      clients.reader.simulateContract({
        account: a.accounts.user.address,
        address: a.deployment.depository,
        abi: depository,
        functionName,
        args: args as never,
      });
    await expect(simulate('depositNative', [a.accounts.user.address, orderId('zero')])).rejects.toThrow(
      /ZeroAmount/,
    );
    await expect(
      simulate('depositErc20', [a.accounts.user.address, a.deployment.usdc, 0n, orderId('zero')]),
    ).rejects.toThrow(/ZeroAmount/);
    await expect(
      simulate('depositErc20', [
        a.accounts.user.address,
        a.deployment.usdc,
        10n ** 12n,
        orderId('no-allowance'),
      ]),
    ).rejects.toThrow(/InsufficientAllowance/);
    // A call to an address without code "succeeds" at the EVM level; the depository must not record it.
    await expect(
      simulate('depositErc20', [a.accounts.user.address, a.accounts.relayer.address, 1n, orderId('no-code')]),
    ).rejects.toThrow(/TransferFailed/);
  });

  describe('permit deposits (usePermit: the user signs EIP-3009, the relayer submits)', () => {
    let parameters: PermitParameters;
    let signature: Hex;

    beforeAll(async () => {
      const { timestamp } = await clients.reader.getBlock();
      parameters = {
        requestId: orderId('permit'),
        chainId: a.chainId,
        token: a.deployment.usdc,
        tokenDomain: { name: 'USD Coin', version: '2' },
        user: a.accounts.user.address,
        depository: a.deployment.depository,
        amount: 5_000_000n,
        validAfter: 0,
        validBefore: Number(timestamp) + 3600,
      };
      signature = await privateKeyToAccount(a.accounts.user.privateKey).signTypedData(
        buildPermitTypedData(parameters),
      );
    });

    it('moves the tokens and emits Erc20Deposit for the user, with the calldata the execute path builds', async () => {
      const before = await usdcBalance(a.accounts.user.address);
      const hash = await clients.relayer.sendTransaction({
        to: a.deployment.depository,
        data: permitDepositCalldata(parameters, signature),
      });
      const logs = parseEventLogs({ abi: depositoryAbi, logs: (await receiptOf(hash)).logs });
      expect(logs.map((log) => [log.eventName, log.args])).toEqual([
        [
          'Erc20Deposit',
          {
            id: parameters.requestId,
            depositor: a.accounts.user.address,
            token: a.deployment.usdc,
            amount: 5_000_000n,
          },
        ],
      ]);
      expect(before - (await usdcBalance(a.accounts.user.address))).toBe(5_000_000n);
      const used = await clients.reader.readContract({
        address: a.deployment.usdc,
        abi: eip3009Abi,
        functionName: 'authorizationState',
        args: [a.accounts.user.address, permitNonce(parameters.requestId)],
      });
      expect(used).toBe(true);
    });

    it('refuses the same authorization twice', async () => {
      await expect(
        clients.reader.call({
          account: a.accounts.relayer.address,
          to: a.deployment.depository,
          data: permitDepositCalldata(parameters, signature),
        }),
      ).rejects.toThrow();
      const { r, s, v } = parseSignature(signature);
      await expect(
        clients.reader.simulateContract({
          account: a.accounts.relayer.address,
          address: a.deployment.depository,
          abi: depository,
          functionName: 'depositErc20WithAuthorization',
          args: [
            parameters.user,
            parameters.token,
            parameters.amount,
            parameters.requestId,
            0n,
            BigInt(parameters.validBefore),
            permitNonce(parameters.requestId),
            Number(v),
            r,
            s,
          ],
        }),
      ).rejects.toThrow(/AuthorizationAlreadyUsed/);
    });

    it('reverts with WrongNonce when the nonce is not keccak256("FerryPermit", id), even if the user signed it', async () => {
      const id = orderId('permit-wrong-nonce');
      const nonce = orderId('some other nonce');
      const typedData = buildPermitTypedData({ ...parameters, requestId: id });
      const signed = await privateKeyToAccount(a.accounts.user.privateKey).signTypedData({
        ...typedData,
        message: { ...typedData.message, nonce },
      });
      const { r, s, v } = parseSignature(signed);
      await expect(
        clients.relayer.writeContract({
          address: a.deployment.depository,
          abi: depository,
          functionName: 'depositErc20WithAuthorization',
          args: [
            a.accounts.user.address,
            a.deployment.usdc,
            5_000_000n,
            id,
            0n,
            BigInt(parameters.validBefore),
            nonce,
            Number(v),
            r,
            s,
          ],
        }),
      ).rejects.toThrow(/WrongNonce/);
    });
  });

  it("validates the smart wallet owner's signatures through ERC-1271, and no one else's", async () => {
    const wallet = a.deployment.smartWallet;
    const owner = privateKeyToAccount(a.accounts.user.privateKey);
    const stranger = privateKeyToAccount(a.accounts.relayer.privateKey);
    const hash = orderId('a request id');
    const isValid = (signature: Hex) =>
      clients.reader.readContract({
        address: wallet,
        abi: smartWalletAbi,
        functionName: 'isValidSignature',
        args: [hash, signature],
      });
    expect(await isValid(await owner.sign({ hash }))).toBe('0x1626ba7e');
    expect(await isValid(await stranger.sign({ hash }))).toBe('0xffffffff');
    // What the app does: viem's ERC-1271 verification of an EIP-191 message signed by the wallet's owner.
    const message = { raw: hash };
    expect(
      await clients.reader.verifyMessage({
        address: wallet,
        message,
        signature: await owner.signMessage({ message }),
      }),
    ).toBe(true);
    expect(
      await clients.reader.verifyMessage({
        address: wallet,
        message,
        signature: await stranger.signMessage({ message }),
      }),
    ).toBe(false);
  });

  it('lets the smart wallet owner, and only the owner, send calls from it', async () => {
    const wallet = a.deployment.smartWallet;
    await receiptOf(await clients.deployer.sendTransaction({ to: wallet, value: parseEther('1') }));
    const before = await clients.reader.getBalance({ address: a.accounts.relayer.address });
    await receiptOf(
      await clients.user.writeContract({
        address: wallet,
        abi: smartWalletAbi,
        functionName: 'execute',
        args: [a.accounts.relayer.address, parseEther('0.25'), '0x'],
      }),
    );
    expect((await clients.reader.getBalance({ address: a.accounts.relayer.address })) - before).toBe(
      parseEther('0.25'),
    );
    await expect(
      clients.relayer.writeContract({
        address: wallet,
        abi: smartWalletAbi,
        functionName: 'execute',
        args: [a.accounts.relayer.address, 1n, '0x'],
      }),
    ).rejects.toThrow(/NotOwner/);
  });

  it('lets the owner (the solver) withdraw native and ERC-20 funds, emitting Withdrawal, and no one else', async () => {
    const to = privateKeyToAccount(`0x${'77'.repeat(32)}`).address;
    for (const [token, amount] of [
      [zeroAddress, 1000n],
      [a.deployment.usdc, 1000n],
    ] as const) {
      const hash = await clients.solver.writeContract({
        address: a.deployment.depository,
        abi: depositoryAdminAbi,
        functionName: 'withdraw',
        args: [token, to, amount],
      });
      const logs = parseEventLogs({ abi: depositoryAdminAbi, logs: (await receiptOf(hash)).logs });
      expect(logs.map((log) => [log.eventName, log.args])).toEqual([['Withdrawal', { token, to, amount }]]);
    }
    expect(await clients.reader.getBalance({ address: to })).toBe(1000n);
    expect(await usdcBalance(to)).toBe(1000n);
    await expect(
      clients.user.writeContract({
        address: a.deployment.depository,
        abi: depository,
        functionName: 'withdraw',
        args: [zeroAddress, a.accounts.user.address, 1n],
      }),
    ).rejects.toThrow(/NotOwner/);
  });

  it('mines blocks, and reverts to a snapshot so that a mined deposit disappears (a reorg)', async () => {
    const reader = clientsOf(b).reader;
    const start = await reader.getBlockNumber();
    const snapshot = await b.snapshot();
    const hash = await clientsOf(b).user.writeContract({
      address: b.deployment.depository,
      abi: depositoryAbi,
      functionName: 'depositNative',
      args: [b.accounts.user.address, orderId('reorged')],
      value: 1n,
    });
    expect((await reader.waitForTransactionReceipt({ hash })).blockNumber).toBe(start + 1n);
    await b.mine(3);
    expect(await reader.getBlockNumber()).toBe(start + 4n);

    await b.revert(snapshot);

    expect(await reader.getBlockNumber()).toBe(start);
    await expect(reader.getTransactionReceipt({ hash })).rejects.toThrow(/could not be found/);
    await expect(b.revert(snapshot)).rejects.toThrow(/no snapshot/);
  });

  it('queues transactions with automine off until a block is mined', async () => {
    const reader = clientsOf(b).reader;
    await b.setAutomine(false);
    try {
      const start = await reader.getBlockNumber();
      await clientsOf(b).user.sendTransaction({ to: b.accounts.relayer.address, value: 1n });
      expect(await reader.getBlockNumber()).toBe(start);
      await b.mine();
      expect(await reader.getBlockNumber()).toBe(start + 1n);
      expect((await reader.getBlock()).transactions).toHaveLength(1);
    } finally {
      await b.setAutomine(true);
    }
  });

  it('stops: the process group is gone and the port no longer answers', async () => {
    const devnet = await startDevnet({ chainId: 31337 });
    await devnet.stop();
    expect(() => process.kill(devnet.pid, 0)).toThrow();
    await expect(fetch(devnet.rpcUrl, { method: 'POST' })).rejects.toThrow();
    await devnet.stop();
  });

  it('exits when the process that started the chain goes away (its stdin closes)', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, DEVNET_CHAIN_ID: '31337', DEVNET_AUTOMINE: 'true' };
    delete env.NODE_OPTIONS;
    const child = spawn(
      process.execPath,
      ['scripts/devnet/hardhat-node.mjs', '--config', 'hardhat.config.cjs', 'node', '--port', String(port)],
      { cwd: ROOT, env, stdio: ['pipe', 'ignore', 'ignore'] },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      for (let answered = false; !answered;) {
        answered = await fetch(`http://127.0.0.1:${port}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        }).then(
          (response) => response.ok,
          () => false,
        );
        if (!answered) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      child.stdin!.end();
      await expect(exited).resolves.toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

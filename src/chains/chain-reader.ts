import {
  type Address,
  type BaseError,
  decodeErrorResult,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  type PublicClient,
  zeroAddress,
} from 'viem';
import { SharedReads } from '../common/shared-reads.js';
import { NextReads, PerBlock } from './block-reads.js';
import { callSandboxAbi, sandboxOf } from './abi/call-executor.js';
import { erc20Abi } from './abi/erc20.js';
import type { ChainCurrency, ChainInfo } from './chain.js';
import { wrongChainOf } from './chain-checked-fetch.js';
import { ReadClients } from './read-clients.js';

export interface GasPrice {
  /** Price of one gas unit in the chain's smallest native unit (wei). */
  readonly priceWei: bigint;
  /** `rpc`: read from the chain; `default`: the chain's configured default (no RPC, or it did not answer in time). */
  readonly source: 'rpc' | 'default';
  /**
   * Why an EVM chain's price is the default: it has no RPC here (`not-configured`), its RPC failed or timed out
   * (`rpc-failed`), or its RPC serves another chain (`wrong-chain`, see `chainCheckedFetch`). Absent for chains whose
   * gas is not read from an RPC (SVM, perps exchanges).
   */
  readonly unavailable?: 'not-configured' | 'rpc-failed' | 'wrong-chain';
}

/**
 * What quotes read from chains, each bounded by `timeoutMs` and never failing a quote: gas prices (read from the
 * chain's RPC when it has one (EVM only), reused for `cacheMs`, else the configured default; a failure is remembered
 * for `cacheMs` too, so a dead RPC costs one timeout per period, not one per quote), and a wallet's balance and
 * allowance (null when the chain cannot tell), read at the chain's head block: one `eth_blockNumber` read after the
 * quote asked (shared by the quotes waiting for it), then the value at that block, read once per block and wallet
 * (`block-reads.ts`): never a value older than the current block, so the INSUFFICIENT_LIQUIDITY check sees the
 * balance it would have seen reading `latest` itself.
 */
export class ChainReader {
  private readonly gasPrices: SharedReads<GasPrice>;
  private readonly clients: ReadClients;
  private readonly heads = new NextReads<string, bigint | null>();
  private readonly atHead = new Map<string, PerBlock<bigint>>();

  constructor(
    options: { readonly cacheMs: number; readonly timeoutMs: number },
    now: () => number = Date.now,
  ) {
    this.gasPrices = new SharedReads(options.cacheMs, now);
    this.clients = new ReadClients(options.timeoutMs);
  }

  gasPrice(chain: ChainInfo): Promise<GasPrice> {
    const fallback = (unavailable?: GasPrice['unavailable']): GasPrice => ({
      priceWei: BigInt(chain.gas.defaultPriceWei),
      source: 'default',
      ...(unavailable ? { unavailable } : {}),
    });
    const { rpcUrl } = chain;
    if (chain.vmType !== 'evm') return Promise.resolve(fallback());
    if (!rpcUrl) return Promise.resolve(fallback('not-configured'));
    return this.gasPrices.get(String(chain.id), () =>
      this.clients
        .of(rpcUrl, chain.id)
        .getGasPrice()
        .then((priceWei): GasPrice => ({ priceWei, source: 'rpc' }))
        .catch((error: unknown) => fallback(wrongChainOf(error) ? 'wrong-chain' : 'rpc-failed')),
    );
  }

  /** The wallet's balance of a currency in its smallest unit at the chain's head, or null when the chain cannot tell. */
  balance(chain: ChainInfo, currency: ChainCurrency, wallet: string): Promise<bigint | null> {
    const key = `balance:${currency.address.toLowerCase()}:${wallet.toLowerCase()}`;
    return this.readAtHead(chain, key, (client, blockNumber) =>
      isNative(currency)
        ? client.getBalance({ address: wallet as Address, blockNumber })
        : client.readContract({
            address: currency.address as Address,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [wallet as Address],
            blockNumber,
          }),
    );
  }

  /** How much of an ERC-20 the wallet lets `spender` move at the chain's head, or null when the chain cannot tell. */
  allowance(
    chain: ChainInfo,
    currency: ChainCurrency,
    wallet: string,
    spender: string,
  ): Promise<bigint | null> {
    if (isNative(currency)) return Promise.resolve(null);
    const key = `allowance:${currency.address.toLowerCase()}:${wallet.toLowerCase()}:${spender.toLowerCase()}`;
    return this.readAtHead(chain, key, (client, blockNumber) =>
      client.readContract({
        address: currency.address as Address,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [wallet as Address, spender as Address],
        blockNumber,
      }),
    );
  }

  /**
   * Runs destination calls as the call executor's sandbox will (an `eth_call` of `runCalls` from the sandbox, funded
   * with `funding` of the native currency) at the latest block. Null when they succeed, or when the chain cannot
   * tell (no RPC or executor, an RPC error): the executor keeps the funds safe either way. Otherwise the index of the
   * call that reverted and the block simulated on.
   */
  async simulateCalls(
    chain: ChainInfo,
    calls: readonly { readonly to: string; readonly value: bigint; readonly data: string }[],
    funding: bigint,
  ): Promise<{ readonly index: number; readonly block: bigint; readonly sandbox: Address } | null> {
    const client = this.client(chain);
    if (!client || !chain.callExecutor || calls.length === 0) return null;
    const sandbox = sandboxOf(chain.callExecutor as Address);
    try {
      const block = await client.getBlockNumber();
      const data = encodeFunctionData({
        abi: callSandboxAbi,
        functionName: 'runCalls',
        args: [calls.map((call) => ({ to: call.to as Address, value: call.value, data: call.data as Hex }))],
      });
      try {
        await client.call({
          account: sandbox,
          to: sandbox,
          data,
          blockNumber: block,
          stateOverride: [{ address: sandbox, balance: funding }],
        });
        return null;
      } catch (error) {
        const revertData = revertDataOf(error);
        if (!revertData) return null;
        const decoded = decodeErrorResult({ abi: callSandboxAbi, data: revertData });
        return { index: Number(decoded.args[0]), block, sandbox };
      }
    } catch {
      return null;
    }
  }

  /**
   * `read` at the chain's head block (an `eth_blockNumber` read after this call), shared by every caller that finds
   * the chain at that block; null when the chain cannot tell (no RPC, an RPC error or timeout).
   */
  private async readAtHead(
    chain: ChainInfo,
    key: string,
    read: (client: PublicClient, blockNumber: bigint) => Promise<bigint>,
  ): Promise<bigint | null> {
    const { rpcUrl } = chain;
    if (chain.vmType !== 'evm' || !rpcUrl) return null;
    const client = this.clients.of(rpcUrl, chain.id);
    // Per chain and URL: one URL configured for two chains must not share heads or values between them.
    const id = `${chain.id}\n${rpcUrl}`;
    // cacheTime 0: viem otherwise answers eth_blockNumber from a cache of up to 4 s.
    const block = await this.heads.get(id, () => client.getBlockNumber({ cacheTime: 0 }).catch(() => null));
    if (block === null) return null;
    let values = this.atHead.get(id);
    if (!values) {
      values = new PerBlock();
      this.atHead.set(id, values);
    }
    return values.get(block, key, (at) => read(client, at).catch(() => null));
  }

  /** One client per RPC URL, reused by every read (gas, balance, allowance). */
  private client(chain: ChainInfo): PublicClient | null {
    if (chain.vmType !== 'evm' || !chain.rpcUrl) return null;
    return this.clients.of(chain.rpcUrl, chain.id);
  }
}

/**
 * The revert data of a failed `eth_call`: where nodes put it (geth: the JSON-RPC error's `data`; Hardhat/EDR: `data.data`,
 * or only the message's "return data: 0x…"), or null when the call failed for another reason.
 */
function revertDataOf(error: unknown): Hex | null {
  let found: Hex | null = null;
  (error as BaseError).walk?.((cause) => {
    const data = (cause as { data?: unknown }).data;
    const nested = (data as { data?: unknown } | undefined)?.data;
    const candidate =
      typeof data === 'string'
        ? data
        : typeof nested === 'string'
          ? nested
          : /return data: (0x[0-9a-fA-F]*)/.exec(
              String(
                (cause as { details?: string; message?: string }).details ?? (cause as Error).message ?? '',
              ),
            )?.[1];
    if (!found && candidate && /^0x[0-9a-fA-F]{8,}$/.test(candidate)) found = candidate as Hex;
    return false;
  });
  return found;
}

const isNative = (currency: ChainCurrency): boolean =>
  currency.metadata.isNative === true || isAddressEqual(currency.address as Address, zeroAddress);

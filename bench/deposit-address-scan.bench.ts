import {
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  keccak256,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEVNET_ACCOUNTS } from '../scripts/devnet/deploy-devnet.js';
import { startDevnet } from '../scripts/devnet/devnets.js';
import { depositAddressTransfers } from '../src/chains/watcher/deposit-address-transfers.js';
import { median, now } from './support.js';

export interface DepositAddressScanFigures {
  readonly blocks: number;
  readonly transactionsPerBlock: number;
  readonly watchedAddresses: number;
  /** The watcher's existing per-block read: the depository's logs of one block (`eth_getLogs`): the anchor. */
  readonly logsMedianMs: number;
  /** One block's transactions read and matched against the watched set (`eth_getBlockByNumber` with transactions). */
  readonly scanMedianMs: number;
  /** The alternative: one `eth_getBalance` per watched address per block. */
  readonly balancesMedianMs: number;
  /** scan ÷ logs and balances ÷ logs, medians. */
  readonly scanRatio: number;
  readonly balancesRatio: number;
}

/**
 * The cost per block of finding native transfers to deposit addresses, in one run on one local chain: `blocks`
 * blocks of `perBlock` plain transfers each (to addresses that are not watched, the common case), then for each
 * block (1) the depository's logs (what the watcher already reads, the anchor), (2) the block's transactions matched
 * against `watched` addresses (what Ferry does), (3) one balance read per watched address (the alternative).
 */
export async function measureDepositAddressScan(
  blocks: number,
  perBlock: number,
  watched: number,
): Promise<DepositAddressScanFigures> {
  const chain = await startDevnet({ chainId: 31338 });
  try {
    const transport = http(chain.rpcUrl);
    const client = createPublicClient({ transport, cacheTime: 0 });
    const account = privateKeyToAccount(DEVNET_ACCOUNTS.user.privateKey);
    const wallet = createWalletClient({ account, transport });
    const addresses = Array.from({ length: watched }, (_, i) =>
      getAddress(keccak256(toHex(`watched-${i}`)).slice(0, 42)),
    );
    const set = new Map(addresses.map((address) => [address.toLowerCase(), `0x${'00'.repeat(32)}`]));
    await chain.request('evm_setAutomine', [false]);
    const first = (await client.getBlockNumber()) + 1n;
    let nonce = await client.getTransactionCount({ address: account.address });
    for (let block = 0; block < blocks; block++) {
      for (let i = 0; i < perBlock; i++) {
        const to = getAddress(keccak256(toHex(`other-${block}-${i}`)).slice(0, 42)) as Address;
        await wallet.sendTransaction({ account, chain: null, to, value: 1n, nonce: nonce++, gas: 21_000n });
      }
      await chain.request('evm_mine');
    }
    await chain.request('evm_setAutomine', [true]);
    const logs: number[] = [];
    const scans: number[] = [];
    const balances: number[] = [];
    for (let round = 0; round < 2; round++) {
      // Round 0 warms up (JIT, connections); round 1 is measured.
      for (let n = first; n < first + BigInt(blocks); n++) {
        let started = now();
        await client.getLogs({ address: chain.deployment.depository as Hex, fromBlock: n, toBlock: n });
        if (round === 1) logs.push(now() - started);
        started = now();
        const found = await depositAddressTransfers(client, set, n, n);
        if (round === 1) scans.push(now() - started);
        if (found.length > 0) throw new Error('no transfer to a watched address was sent');
        started = now();
        await Promise.all(addresses.map((address) => client.getBalance({ address, blockNumber: n })));
        if (round === 1) balances.push(now() - started);
      }
    }
    const logsMedianMs = median(logs);
    const scanMedianMs = median(scans);
    const balancesMedianMs = median(balances);
    return {
      blocks,
      transactionsPerBlock: perBlock,
      watchedAddresses: watched,
      logsMedianMs,
      scanMedianMs,
      balancesMedianMs,
      scanRatio: scanMedianMs / logsMedianMs,
      balancesRatio: balancesMedianMs / logsMedianMs,
    };
  } finally {
    await chain.stop();
  }
}

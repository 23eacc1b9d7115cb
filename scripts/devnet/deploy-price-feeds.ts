import {
  type Address,
  type Chain,
  getAddress,
  getContractAddress,
  type Hex,
  parseUnits,
  type PublicClient,
  type Transport,
  type WalletClient,
  type Account,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ContractArtifact } from './deploy-devnet.js';

/**
 * The chain that holds every devnet price feed, like production's one "price chain" (Ethereum mainnet, where the
 * Chainlink feeds Ferry reads live): devnet A.
 */
export const PRICE_FEED_CHAIN_ID = 31337;

/**
 * Hardhat account #5 deploys the feeds. A deployer of their own keeps their addresses independent of how many
 * contracts account #0 deploys (its nonces move whenever a contract is added to the devnet).
 */
export const PRICE_FEED_DEPLOYER = Object.freeze({
  address: getAddress('0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'),
  privateKey: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba' as Hex,
});

/** Every feed's decimals, as Chainlink's USD feeds. */
export const PRICE_FEED_DECIMALS = 8;

/**
 * One feed per priced asset, in deployment order (account #5's nonce = index), with the initial answer equal to
 * the development table (`quotes.prices` of configs/app.development.json). Wrapped and bridged symbols (WETH, WBTC,
 * USDC.e, …) share their asset's feed through `quotes.priceSource.symbols`.
 */
export const DEVNET_PRICE_FEEDS = [
  { asset: 'ETH', usd: '3000' },
  { asset: 'USDC', usd: '1' },
  { asset: 'USDT', usd: '1' },
  { asset: 'DAI', usd: '1' },
  { asset: 'BTC', usd: '90000' },
  { asset: 'POL', usd: '0.5' },
  { asset: 'BNB', usd: '600' },
  { asset: 'SOL', usd: '150' },
  { asset: 'HYPE', usd: '25' },
] as const;

export type DevnetPriceFeeds = Readonly<Record<(typeof DEVNET_PRICE_FEEDS)[number]['asset'], Address>>;

/** The addresses a fresh chain gives the feeds (account #5's nonces 0, 1, …), without deploying anything. */
export function devnetPriceFeedAddresses(): DevnetPriceFeeds {
  return Object.fromEntries(
    DEVNET_PRICE_FEEDS.map(({ asset }, nonce) => [
      asset,
      getContractAddress({ from: PRICE_FEED_DEPLOYER.address, nonce: BigInt(nonce) }),
    ]),
  ) as DevnetPriceFeeds;
}

export interface DeployPriceFeedsParameters {
  readonly reader: PublicClient;
  readonly wallet: WalletClient<Transport, Chain>;
  readonly artifact: ContractArtifact;
}

/**
 * Deploys `DEVNET_PRICE_FEEDS` (TestPriceFeed, 8 decimals, description "<ASSET> / USD", owner account #5) and
 * checks each lands at the address `devnetPriceFeedAddresses` predicts: a chain where #5 already sent transactions
 * would give other addresses than the config files list, which must fail loudly rather than price from nothing.
 */
export async function deployPriceFeeds({
  reader,
  wallet,
  artifact,
}: DeployPriceFeedsParameters): Promise<DevnetPriceFeeds> {
  const expected = devnetPriceFeedAddresses();
  const account = wallet.account as Account;
  for (const { asset, usd } of DEVNET_PRICE_FEEDS) {
    const hash = await wallet.deployContract({
      account,
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      args: [PRICE_FEED_DECIMALS, `${asset} / USD`, parseUnits(usd, PRICE_FEED_DECIMALS)],
    });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`Deploying the ${asset} / USD feed reverted (${hash})`);
    const address = getAddress(receipt.contractAddress!);
    if (address !== expected[asset]) {
      throw new Error(
        `The ${asset} / USD feed was deployed at ${address}, not ${expected[asset]}: account #5 ` +
          `(${PRICE_FEED_DEPLOYER.address}) must be unused before the devnet deploys the feeds`,
      );
    }
  }
  return expected;
}

/** The wallet of the feed deployer (#5) on one chain. */
export const priceFeedAccount = () => privateKeyToAccount(PRICE_FEED_DEPLOYER.privateKey);

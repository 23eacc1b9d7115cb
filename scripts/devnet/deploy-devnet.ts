import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  parseUnits,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  deployPriceFeeds,
  type DevnetPriceFeeds,
  PRICE_FEED_CHAIN_ID,
  priceFeedAccount,
} from './deploy-price-feeds.js';
import {
  deployOracleVerifier,
  ORACLE_HUB_CHAIN_ID,
  oracleVerifierAccount,
} from './deploy-oracle-verifier.js';
import { repositoryRoot, rpc } from './local-chain.js';

export interface DevnetAccount {
  readonly address: Address;
  readonly privateKey: Hex;
}

/** The roles of the local chains' accounts (Hardhat's well-known test accounts #0 to #3). */
export interface DevnetAccounts {
  /** #0: deploys the contracts (so their addresses are the same on every fresh chain) and owns TestUSDC. */
  readonly deployer: DevnetAccount;
  /** #1: the solver of `configs/chains.{development,test}.json`; owns the depository. */
  readonly solver: DevnetAccount;
  /** #2: a demo user; owns the SmartWallet. */
  readonly user: DevnetAccount;
  /** #3: submits permit deposits (`depositErc20WithAuthorization`). */
  readonly relayer: DevnetAccount;
}

/** Hardhat's default mnemonic accounts. Public knowledge: never send real funds to them. */
const HARDHAT_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
] as const;

const account = (privateKey: Hex): DevnetAccount => ({
  address: privateKeyToAccount(privateKey).address,
  privateKey,
});

export const DEVNET_ACCOUNTS: DevnetAccounts = Object.freeze({
  deployer: account(HARDHAT_KEYS[0]),
  solver: account(HARDHAT_KEYS[1]),
  user: account(HARDHAT_KEYS[2]),
  relayer: account(HARDHAT_KEYS[3]),
});

/** USDC (6 decimals) minted at deployment. Every account also starts with 10,000 ETH from Hardhat's genesis. */
export const DEVNET_FUNDING = Object.freeze({
  solverUsdc: parseUnits('1000000', 6),
  userUsdc: parseUnits('10000', 6),
});

/** `contracts/artifacts/<Name>.json`, written by `npm run contracts`. */
export interface ContractArtifact {
  readonly contractName: string;
  readonly abi: Abi;
  readonly bytecode: Hex;
  readonly deployedBytecode: Hex;
  readonly sourceHash: string;
}

export function readArtifact(name: string): ContractArtifact {
  const file = join(repositoryRoot(), 'contracts', 'artifacts', `${name}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ContractArtifact;
  } catch (error) {
    throw new Error(`Cannot read ${file} (${(error as Error).message}): run \`npm run contracts\``);
  }
}

export interface DevnetDeployment {
  readonly depository: Address;
  readonly usdc: Address;
  readonly weth: Address;
  readonly smartWallet: Address;
  /** FerryCallExecutor (solver: the solver account), deployed after the USDC mints (deployer nonce 6). */
  readonly callExecutor: Address;
  /** FerryDepositAddressFactory (owner: the solver; depository: above), deployed after the executor (nonce 7). */
  readonly depositAddressFactory: Address;
  /** The USD price feeds by asset, on the price chain (31337) only; null elsewhere (docs/prices.md). */
  readonly priceFeeds: DevnetPriceFeeds | null;
  /** FerryOracleVerifier, on the hub chain (31337) only; null elsewhere (docs/oracle-verifier.md). */
  readonly oracleVerifier: Address | null;
}

export interface DeployDevnetParameters {
  readonly rpcUrl: string;
  readonly chainId: number;
}

/**
 * Deploys FerryDepository (owner: the solver), TestUSDC, TestWETH and SmartWallet (owner: the user) from the
 * deployer, in that order, then mints USDC to the solver and the user, then deploys FerryCallExecutor (solver: the
 * solver account) and FerryDepositAddressFactory (owner: the solver). On a fresh chain the deployer's nonces 0 to 3, 6
 * and 7 give the addresses the config files list (0x5FbDB…, 0xe7f17…, 0x9fE46…, 0xCf7Ed…, executor 0x01658…,
 * deposit-address factory 0xa513E…). On the price chain (31337) Hardhat account #5 then deploys the USD price feeds
 * (`deployPriceFeeds`), and on the oracle hub (also 31337) account #4 deploys FerryOracleVerifier
 * (`deployOracleVerifier`), both at addresses no other deployment moves. Automine is switched on
 * for the deployment and restored after, so an interval-mined chain does not wait a block per transaction.
 *
 * @example const deployment = await deployDevnet({ rpcUrl: 'http://127.0.0.1:8545', chainId: 31337 })
 */
export async function deployDevnet({ rpcUrl, chainId }: DeployDevnetParameters): Promise<DevnetDeployment> {
  const chain = defineChain({
    id: chainId,
    name: `Ferry devnet ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl);
  const reader = createPublicClient({ chain, transport, pollingInterval: 50 });
  const deployer = createWalletClient({
    account: privateKeyToAccount(DEVNET_ACCOUNTS.deployer.privateKey),
    chain,
    transport,
  });
  const [depository, usdc, weth, smartWallet, callExecutor, depositAddressFactory] = [
    'FerryDepository',
    'TestUSDC',
    'TestWETH',
    'SmartWallet',
    'FerryCallExecutor',
    'FerryDepositAddressFactory',
  ].map(readArtifact);

  const automine = await rpc<boolean>(rpcUrl, 'hardhat_getAutomine');
  if (!automine) await rpc(rpcUrl, 'evm_setAutomine', [true]);
  try {
    const confirm = async (hash: Hex, what: string) => {
      const receipt = await reader.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`${what} reverted on chain ${chainId} (${hash})`);
      return receipt;
    };
    const deploy = async (artifact: ContractArtifact, args: readonly unknown[] = []): Promise<Address> => {
      const hash = await deployer.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
      const { contractAddress } = await confirm(hash, `Deploying ${artifact.contractName}`);
      return getAddress(contractAddress!);
    };
    const contracts = {
      depository: await deploy(depository, [DEVNET_ACCOUNTS.solver.address]),
      usdc: await deploy(usdc),
      weth: await deploy(weth),
      smartWallet: await deploy(smartWallet, [DEVNET_ACCOUNTS.user.address]),
    };
    for (const [to, amount] of [
      [DEVNET_ACCOUNTS.solver.address, DEVNET_FUNDING.solverUsdc],
      [DEVNET_ACCOUNTS.user.address, DEVNET_FUNDING.userUsdc],
    ] as const) {
      const hash = await deployer.writeContract({
        address: contracts.usdc,
        abi: usdc.abi,
        functionName: 'mint',
        args: [to, amount],
      });
      await confirm(hash, `Minting USDC to ${to}`);
    }
    const executor = await deploy(callExecutor, [DEVNET_ACCOUNTS.solver.address]);
    const factory = await deploy(depositAddressFactory, [
      DEVNET_ACCOUNTS.solver.address,
      contracts.depository,
    ]);
    const priceFeeds =
      chainId === PRICE_FEED_CHAIN_ID
        ? await deployPriceFeeds({
            reader,
            wallet: createWalletClient({ account: priceFeedAccount(), chain, transport }),
            artifact: readArtifact('TestPriceFeed'),
          })
        : null;
    const oracleVerifier =
      chainId === ORACLE_HUB_CHAIN_ID
        ? await deployOracleVerifier({
            reader,
            wallet: createWalletClient({ account: oracleVerifierAccount(), chain, transport }),
            artifact: readArtifact('FerryOracleVerifier'),
          })
        : null;
    return {
      ...contracts,
      callExecutor: executor,
      depositAddressFactory: factory,
      priceFeeds,
      oracleVerifier,
    };
  } finally {
    if (!automine) await rpc(rpcUrl, 'evm_setAutomine', [false]);
  }
}

import {
  type Account,
  type Address,
  type Chain,
  getAddress,
  getContractAddress,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ContractArtifact } from './deploy-devnet.js';

/**
 * The devnet hub: the chain whose FerryOracleVerifier is the `verifyingContract` of the oracle's EIP-712 domain
 * (`chainId` of configs/chains.hub.{development,test}.json): devnet A.
 */
export const ORACLE_HUB_CHAIN_ID = 31337;

/**
 * Hardhat account #4 deploys and owns the verifier (it alone may change the signer set). A deployer of its own keeps
 * the address independent of how many contracts account #0 deploys, as the price feeds' #5 does.
 */
export const ORACLE_VERIFIER_OWNER = Object.freeze({
  address: getAddress('0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'),
  privateKey: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a' as Hex,
});

/**
 * The development oracle signers, Hardhat accounts #7 and #8: a local oracle runs with `ECDSA_PRIVATE_KEY` set to
 * one of these keys (a second instance, its peer, with the other). Public keys: never use them on a real chain.
 */
export const DEVNET_ORACLE_SIGNERS = Object.freeze([
  Object.freeze({
    address: getAddress('0x14dC79964da2C08b23698B3D3cc7Ca32193d9955'),
    privateKey: '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356' as Hex,
  }),
  Object.freeze({
    address: getAddress('0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f'),
    privateKey: '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97' as Hex,
  }),
]);

/** One signature is enough on the devnet, so a single local oracle produces attestations the verifier accepts. */
export const DEVNET_ORACLE_THRESHOLD = 1n;

/** Where a fresh hub chain gets the verifier: account #4's nonce 0 (the `oracle` of the hub config files). */
export function devnetOracleVerifierAddress(): Address {
  return getContractAddress({ from: ORACLE_VERIFIER_OWNER.address, nonce: 0n });
}

export interface DeployOracleVerifierParameters {
  readonly reader: PublicClient;
  readonly wallet: WalletClient<Transport, Chain>;
  readonly artifact: ContractArtifact;
}

/**
 * Deploys FerryOracleVerifier (owner #4, signers #7 and #8, threshold 1) and checks it lands at
 * `devnetOracleVerifierAddress()`: on a chain where #4 already sent transactions the oracle would sign for a domain
 * whose verifying contract is not there, which must fail loudly.
 */
export async function deployOracleVerifier({
  reader,
  wallet,
  artifact,
}: DeployOracleVerifierParameters): Promise<Address> {
  const hash = await wallet.deployContract({
    account: wallet.account as Account,
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: [
      ORACLE_VERIFIER_OWNER.address,
      DEVNET_ORACLE_SIGNERS.map((signer) => signer.address),
      DEVNET_ORACLE_THRESHOLD,
    ],
  });
  const receipt = await reader.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`Deploying FerryOracleVerifier reverted (${hash})`);
  const address = getAddress(receipt.contractAddress!);
  const expected = devnetOracleVerifierAddress();
  if (address !== expected) {
    throw new Error(
      `FerryOracleVerifier was deployed at ${address}, not ${expected}: account #4 ` +
        `(${ORACLE_VERIFIER_OWNER.address}) must be unused before the devnet deploys the verifier`,
    );
  }
  return address;
}

/** The wallet account of the verifier's deployer and owner (#4). */
export const oracleVerifierAccount = () => privateKeyToAccount(ORACLE_VERIFIER_OWNER.privateKey);

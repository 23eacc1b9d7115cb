import { type Hex, keccak256, recoverAddress, toHex } from 'viem';
import {
  type DepositoryDepositMessage,
  digestOf,
  messageIdOf,
  type OracleDomain,
} from '../src/oracle/messages/oracle-messages.js';
import type { OracleSigner } from '../src/oracle/signer/oracle-signer.js';

/** CPU time (ms) of one call of each step an attestation and a fan-out make beside the chain reads. */
export interface SigningCosts {
  /** `messageIdOf`: the EIP-712 struct hash (every attestation, and once per peer answer judged). */
  readonly messageIdMs: number;
  /** `digestOf`: the typed-data hash under the domain (every attestation, and once per peer answer judged). */
  readonly digestMs: number;
  /** The signer's `signDigest` (RawKeySigner: viem `sign`). */
  readonly signMs: number;
  /** viem `recoverAddress`: what the fanning-out instance does per peer signature. */
  readonly recoverMs: number;
}

/**
 * Times each step alone on a deposit message of the bench's shape (`rounds` calls after a warm-up, CPU time of this
 * process), so the RESULTS can say where an attestation's and a fan-out's CPU goes.
 */
export async function measureSigningCosts(
  signer: OracleSigner,
  domain: OracleDomain,
  rounds = 300,
): Promise<SigningCosts> {
  const message: DepositoryDepositMessage = {
    data: { chainId: '31337', transactionId: keccak256(toHex('transaction')) },
    result: {
      depository: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      depositId: keccak256(toHex('deposit')),
      depositor: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      currency: '0x0000000000000000000000000000000000000000',
      amount: '1000000000000000',
      logIndex: '0',
    },
  };
  const digest = digestOf('depository-deposit', message, domain);
  const signature: Hex = await signer.signDigest(digest);
  const cpuOf = async (step: () => unknown): Promise<number> => {
    for (let i = 0; i < 50; i++) await step();
    const before = process.cpuUsage();
    for (let i = 0; i < rounds; i++) await step();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / rounds;
  };
  return {
    messageIdMs: await cpuOf(() => messageIdOf('depository-deposit', message)),
    digestMs: await cpuOf(() => digestOf('depository-deposit', message, domain)),
    signMs: await cpuOf(() => signer.signDigest(digest)),
    recoverMs: await cpuOf(() => recoverAddress({ hash: digest, signature })),
  };
}

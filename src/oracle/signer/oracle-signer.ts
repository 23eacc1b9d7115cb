import { type Address, type Hex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';

/**
 * The one signer of an oracle instance: it signs 32-byte EIP-712 digests and answers 65-byte `r ‖ s ‖ v` signatures
 * with a low `s` (EIP-2), which `ecrecover` and viem's `recoverAddress` accept. `SIGNING_MODULE` chooses the
 * implementation: `raw-private-key` (this file) or `cloud-kms` (kms-signer.ts).
 */
export interface OracleSigner {
  readonly address: Address;
  signDigest(digest: Hex): Promise<Hex>;
}

/** `SIGNING_MODULE=raw-private-key`: the key (`ECDSA_PRIVATE_KEY`) held in memory, signing with viem. */
export class RawKeySigner implements OracleSigner {
  readonly address: Address;

  constructor(private readonly privateKey: Hex) {
    this.address = privateKeyToAccount(privateKey).address;
  }

  signDigest(digest: Hex): Promise<Hex> {
    return sign({ hash: digest, privateKey: this.privateKey, to: 'hex' });
  }
}

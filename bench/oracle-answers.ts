import { type Address, type Hash, type Hex, isAddressEqual, recoverAddress } from 'viem';
import type { OracleSignature } from '../src/oracle/attestation.js';
import {
  type DepositoryDepositMessage,
  digestOf,
  messageIdOf,
  type OracleDomain,
} from '../src/oracle/messages/oracle-messages.js';

/** A deposit attestation as the route answers it (JSON: the domain's chain id may come back as a number). */
export interface AttestationAnswer {
  readonly kind: string;
  readonly messageId: Hex;
  readonly domain: OracleDomain;
  readonly message: DepositoryDepositMessage;
  readonly signatures: readonly OracleSignature[];
}

/**
 * Checks every answer of a round, so a throughput figure only counts real attestations: the answer attests the
 * deposit that was asked about (transaction and deposit id), its message id is the message's, it is signed under
 * `domain`, and it carries exactly one counted signature from each of `signers` (no more, no fewer, none shadow),
 * each recovering to the signer it names. Throws on the first answer that falls short; returns the signatures
 * recovered.
 */
export async function checkAnswers(
  answers: readonly AttestationAnswer[],
  deposits: readonly { readonly hash: Hash; readonly id: Hex }[],
  signers: readonly Address[],
  domain: OracleDomain,
): Promise<number> {
  let recovered = 0;
  for (const [index, answer] of answers.entries()) {
    const deposit = deposits[index];
    const fail = (why: string): never => {
      throw new Error(`The attestation of deposit ${deposit.hash} ${why}`);
    };
    if (answer.kind !== 'depository-deposit') fail(`is of kind ${answer.kind}`);
    if (answer.message.data.transactionId.toLowerCase() !== deposit.hash.toLowerCase())
      fail(`names transaction ${answer.message.data.transactionId}`);
    if (answer.message.result.depositId.toLowerCase() !== deposit.id.toLowerCase())
      fail(`names deposit id ${answer.message.result.depositId}`);
    if (messageIdOf('depository-deposit', answer.message) !== answer.messageId)
      fail('has a message id that is not its message');
    if (
      Number(answer.domain.chainId) !== domain.chainId ||
      !isAddressEqual(answer.domain.verifyingContract, domain.verifyingContract)
    )
      fail('is signed under another domain');
    if (answer.signatures.length !== signers.length)
      fail(`carries ${answer.signatures.length} signatures, not ${signers.length}`);
    const digest = digestOf('depository-deposit', answer.message, domain);
    for (const expected of signers) {
      const mine = answer.signatures.filter((signature) => isAddressEqual(signature.signer, expected));
      if (mine.length !== 1) fail(`carries ${mine.length} signatures of ${expected}`);
      if (mine[0].shadow) fail(`carries a shadow signature of ${expected}`);
      const signer = await recoverAddress({ hash: digest, signature: mine[0].signature });
      if (!isAddressEqual(signer, expected))
        fail(`carries a signature of ${expected} recovering to ${signer}`);
      recovered++;
    }
  }
  return recovered;
}

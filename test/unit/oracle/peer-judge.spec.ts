import type { Hex } from 'viem';
import type { Attestation } from '../../../src/oracle/attestation.js';
import {
  digestOf,
  type DepositoryDepositMessage,
  messageIdOf,
  type OracleDomain,
} from '../../../src/oracle/messages/oracle-messages.js';
import { judge } from '../../../src/oracle/peers/peer-signatures.js';
import { MAX_ANSWER_SIGNATURES } from '../../../src/oracle/read-oracle-answer.js';
import { RawKeySigner } from '../../../src/oracle/signer/oracle-signer.js';

const domain: OracleDomain = {
  name: 'FerryOracle',
  version: '1',
  chainId: 31337,
  verifyingContract: '0x0000000000000000000000000000000000000001',
};
const message: DepositoryDepositMessage = {
  data: { chainId: '31337', transactionId: `0x${'ab'.repeat(32)}` },
  result: {
    depository: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    depositId: `0x${'0a'.repeat(32)}`,
    depositor: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    currency: '0x0000000000000000000000000000000000000000',
    amount: '1000',
    logIndex: '0',
  },
};
const peer = new RawKeySigner(`0x${'5e'.repeat(32)}` as Hex);
const other = new RawKeySigner(`0x${'6f'.repeat(32)}` as Hex);

async function attestationBy(
  signer: RawKeySigner,
  shadow = false,
  theirs: DepositoryDepositMessage = message,
  theirDomain: OracleDomain = domain,
): Promise<Attestation<'depository-deposit'>> {
  return {
    kind: 'depository-deposit',
    messageId: messageIdOf('depository-deposit', theirs),
    domain: theirDomain,
    message: theirs,
    signatures: [
      {
        signer: signer.address,
        signature: await signer.signDigest(digestOf('depository-deposit', theirs, theirDomain)),
        shadow,
      },
    ],
  };
}

describe(judge.name, () => {
  let ours: Attestation<'depository-deposit'>;
  beforeAll(async () => {
    ours = await attestationBy(other);
  });

  it('keeps the signature of a peer that signed the same message under the same domain', async () => {
    const theirs = await attestationBy(peer);
    expect(await judge('p', ours, theirs)).toEqual({ peer: 'p', outcome: 'agreed', kept: theirs.signatures });
  });

  it('drops a peer that signed another message', async () => {
    const changed = { ...message, result: { ...message.result, amount: '1001' } };
    const theirs = await attestationBy(peer, false, changed);
    expect(await judge('p', ours, theirs)).toMatchObject({
      outcome: 'disagreed',
      reason: /^message 0x.* differs/,
    });
  });

  it('drops a peer that claims our message id over another message', async () => {
    const changed = { ...message, result: { ...message.result, amount: '1001' } };
    const theirs = { ...(await attestationBy(peer, false, changed)), messageId: ours.messageId };
    expect(await judge('p', ours, theirs)).toMatchObject({ outcome: 'disagreed' });
  });

  it('drops a peer bound to another hub (domain), though its message id is ours', async () => {
    const theirs = await attestationBy(peer, false, message, { ...domain, chainId: 1 });
    expect(theirs.messageId).toBe(ours.messageId);
    expect(await judge('p', ours, theirs)).toEqual({
      peer: 'p',
      outcome: 'disagreed',
      reason: 'domain differs',
    });
  });

  it('drops a signature that does not recover to the signer it names, and a peer with none', async () => {
    const theirs = await attestationBy(peer);
    const forged = { ...theirs, signatures: [{ ...theirs.signatures[0], signer: other.address }] };
    expect(await judge('p', ours, forged)).toMatchObject({
      outcome: 'disagreed',
      reason: /does not recover/,
    });
    const garbled = { ...theirs, signatures: [{ ...theirs.signatures[0], signature: '0x1234' as Hex }] };
    expect(await judge('p', ours, garbled)).toMatchObject({ outcome: 'disagreed' });
    expect(await judge('p', ours, { ...theirs, signatures: [] })).toMatchObject({ reason: 'no signature' });
  });

  it('drops an answer that is no attestation', async () => {
    expect(await judge('p', ours, {})).toMatchObject({ outcome: 'disagreed' });
    expect(await judge('p', ours, { message: { data: 1 } as never })).toMatchObject({ outcome: 'disagreed' });
  });

  it('checks a shadow signature but never keeps it', async () => {
    const theirs = await attestationBy(peer, true);
    expect(await judge('p', ours, theirs)).toEqual({
      peer: 'p',
      outcome: 'shadow-agreed',
      signers: [peer.address],
    });
  });

  it('keeps an answer of MAX_ANSWER_SIGNATURES valid signatures, and drops one more as failed before recovering any', async () => {
    const signers = Array.from(
      { length: MAX_ANSWER_SIGNATURES + 1 },
      (_, index) => new RawKeySigner(`0x${(index + 1).toString(16).padStart(64, '0')}` as Hex),
    );
    const digest = digestOf('depository-deposit', message, domain);
    const signatures = await Promise.all(
      signers.map(async (signer) => ({
        signer: signer.address,
        signature: await signer.signDigest(digest),
        shadow: false,
      })),
    );
    const theirs = await attestationBy(peer);

    const atTheLimit = await judge('p', ours, { ...theirs, signatures: signatures.slice(1) });
    // One more, the extra one not even a signature: refused on the count alone.
    const overIt = await judge('p', ours, {
      ...theirs,
      signatures: [...signatures.slice(1), { signer: peer.address, signature: '0x' as Hex, shadow: false }],
    });

    expect(atTheLimit).toMatchObject({ outcome: 'agreed', kept: signatures.slice(1) });
    expect(overIt).toEqual({
      peer: 'p',
      outcome: 'failed',
      reason: `answer holds ${MAX_ANSWER_SIGNATURES + 1} signatures, more than ${MAX_ANSWER_SIGNATURES}`,
    });
  });
});

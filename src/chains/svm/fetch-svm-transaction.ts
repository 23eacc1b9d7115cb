import { Buffer } from 'node:buffer';
import {
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import type { SvmTransactionRecord } from './svm-deposit-reader.js';

export interface FetchSvmTransactionParameters {
  readonly rpc: Rpc<SolanaRpcApi>;
  readonly signature: string;
  readonly timeoutMs: number;
  /** `finalized` to confirm a deposit; `confirmed` to detect one early. */
  readonly commitment: 'confirmed' | 'finalized';
}

/**
 * One transaction as `readSvmDeposit` reads it, fetched with `getTransaction` (base64, v0 allowed): the message,
 * success, fee, slot, time, and the balances before and after mapped from account indexes to addresses. Null when
 * the chain does not know the signature (yet) at that commitment, or does not report its block time (`blockTime:
 * null`): a deposit's time decides whether it came after its quote expired, and no stand-in time is safe (0 would
 * pass every expiry). Accounts loaded from lookup tables are left out: the reader does not read such transactions.
 *
 * @example fetchSvmTransaction({ rpc: createSolanaRpc(url), signature, timeoutMs: 1500, commitment: 'finalized' })
 */
export async function fetchSvmTransaction(
  parameters: FetchSvmTransactionParameters,
): Promise<SvmTransactionRecord | null> {
  const result = await parameters.rpc
    .getTransaction(parameters.signature as Signature, {
      encoding: 'base64',
      maxSupportedTransactionVersion: 0,
      commitment: parameters.commitment,
    })
    .send({ abortSignal: AbortSignal.timeout(parameters.timeoutMs) });
  if (!result?.meta || result.blockTime === null || result.blockTime === undefined) return null;
  const { meta } = result;
  const wire = getTransactionDecoder().decode(Buffer.from(result.transaction[0], 'base64'));
  const keys = getCompiledTransactionMessageDecoder().decode(wire.messageBytes).staticAccounts;
  const tokenBalances = (balances: typeof meta.preTokenBalances) =>
    new Map((balances ?? []).map((balance) => [balance.accountIndex, balance]));
  const [preTokens, postTokens] = [
    tokenBalances(meta.preTokenBalances),
    tokenBalances(meta.postTokenBalances),
  ];
  return {
    signature: parameters.signature,
    slot: BigInt(result.slot),
    blockTime: Number(result.blockTime),
    fee: BigInt(meta.fee),
    failed: meta.err !== null,
    messageBytes: Uint8Array.from(wire.messageBytes),
    lamports: new Map(
      keys.map((key, index) => [
        key,
        { pre: BigInt(meta.preBalances[index] ?? 0), post: BigInt(meta.postBalances[index] ?? 0) },
      ]),
    ),
    tokens: new Map(
      keys.flatMap((key, index) => {
        const [pre, post] = [preTokens.get(index), postTokens.get(index)];
        const account = post ?? pre;
        if (!account?.owner) return [];
        return [
          [
            key,
            {
              mint: account.mint,
              owner: account.owner,
              pre: BigInt(pre?.uiTokenAmount.amount ?? '0'),
              post: BigInt(post?.uiTokenAmount.amount ?? '0'),
            },
          ],
        ];
      }),
    ),
  };
}

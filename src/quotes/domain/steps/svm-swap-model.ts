import { Buffer } from 'node:buffer';
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { hexToBytes, keccak256, stringToBytes } from 'viem';
import { QuoteError } from '../quote-error.js';
import { TOKEN_PROGRAM_ID } from './svm-deposit.js';

/**
 * A size model of SVM origin swaps, used until an aggregator adapter supplies the real instructions: each hop is one
 * instruction on the source's router program, with the user and the token program plus `newAccountsPerHop` accounts
 * of its own (pool state, vaults, authorities…) and `dataBytes` of data. No lookup tables are assumed (the worst
 * case). The accounts and program ids are placeholders derived from fixed seeds: the instructions have the size of
 * a real route, not its effect (docs/steps.md, "SVM origin swap model").
 */
export interface SwapSourceModel {
  readonly newAccountsPerHop: number;
  readonly dataBytes: number;
}

/** The smaller-instruction aggregator (the spec's neutral name for it is `jupiter`). */
export const COMPACT_SWAP_SOURCE = 'jupiter';

export const SWAP_SOURCE_MODELS: Readonly<Record<'compact' | 'other', SwapSourceModel>> = {
  compact: { newAccountsPerHop: 3, dataBytes: 16 },
  other: { newAccountsPerHop: 5, dataBytes: 16 },
};

/** Hops a route may take when the quote sets no `maxRouteLength`. */
export const DEFAULT_SVM_ROUTE_LENGTH = 4;

/** A longer allowance is modelled as this many hops: already far over the size limit with any source. */
export const MAX_MODELLED_ROUTE_LENGTH = 16;

export interface OriginSwapOptions {
  readonly maxRouteLength?: number;
  readonly includedOriginSwapSources?: readonly string[];
}

export interface OriginSwapRoute {
  readonly hops: number;
  readonly source: 'compact' | 'other';
}

/**
 * The route the model assumes: as many hops as allowed (`maxRouteLength`, else 4), through the largest source that
 * is allowed (only `jupiter` allowed → compact; anything else, or no restriction → other).
 */
export function originSwapRoute(options: OriginSwapOptions): OriginSwapRoute {
  const hops = options.maxRouteLength ?? DEFAULT_SVM_ROUTE_LENGTH;
  if (!Number.isSafeInteger(hops) || hops < 1) {
    throw new QuoteError('INVALID_INPUT', `maxRouteLength must be a positive integer; got ${hops}`, {
      field: 'maxRouteLength',
    });
  }
  const sources = options.includedOriginSwapSources ?? [];
  const compactOnly =
    sources.length > 0 && sources.every((source) => source.toLowerCase() === COMPACT_SWAP_SOURCE);
  return { hops: Math.min(hops, MAX_MODELLED_ROUTE_LENGTH), source: compactOnly ? 'compact' : 'other' };
}

/** The modelled instructions of an origin swap paid by `user`, one per hop. */
export function modelOriginSwapInstructions(
  user: PublicKey,
  route: OriginSwapRoute,
): TransactionInstruction[] {
  const model = SWAP_SOURCE_MODELS[route.source];
  const programId = placeholderKey(`program:${route.source}`);
  return Array.from({ length: route.hops }, (_, hop) => {
    const own = Array.from({ length: model.newAccountsPerHop }, (_, k) => ({
      pubkey: placeholderKey(`account:${route.source}:${hop}:${k}`),
      isSigner: false,
      isWritable: true,
    }));
    const data = Buffer.alloc(model.dataBytes);
    data.writeUInt8(hop & 0xff, 0);
    return new TransactionInstruction({
      programId,
      keys: [
        { pubkey: user, isSigner: true, isWritable: true },
        { pubkey: TOKEN_PROGRAM_ID, isSigner: false, isWritable: false },
        ...own,
      ],
      data,
    });
  });
}

function placeholderKey(seed: string): PublicKey {
  return new PublicKey(hexToBytes(keccak256(stringToBytes(`ferry.svm.swap-model:${seed}`))));
}

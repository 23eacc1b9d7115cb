import { Buffer } from 'node:buffer';
import {
  AccountState,
  getMintEncoder,
  getTokenDecoder,
  getTokenEncoder,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import {
  type Address,
  type KeyPairSigner,
  lamports,
  none,
  signTransaction,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Transaction,
} from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import type { SvmTransactionRecord } from '../../src/chains/svm/svm-deposit-reader.js';
import { associatedTokenAddress } from '../../src/quotes/domain/steps/svm-programs.js';

/** Token accounts (165 bytes) and mints (82 bytes) as the SPL Token program lays them out. */
const TOKEN_ACCOUNT_SIZE = 165n;
const MINT_SIZE = 82n;

/**
 * A LiteSVM instance (System, SPL Token, Associated Token and Memo programs loaded) with the helpers the SVM tests
 * need: mints at a given address, funded token accounts, and sending the base64 transaction a quote returns, signed
 * by the user's key.
 */
export class SvmTestChain {
  readonly vm = new LiteSVM();

  constructor() {
    // LiteSVM's clock starts at 1970; a chain's blocks carry the time they were made, which decides whether a deposit
    // came after its quote expired.
    const clock = this.vm.getClock();
    clock.unixTimestamp = BigInt(Math.floor(Date.now() / 1000));
    this.vm.setClock(clock);
  }

  airdrop(to: Address, amount: bigint): void {
    const result = this.vm.airdrop(to, lamports(amount));
    if (result instanceof FailedTransactionMetadata) throw new Error(`airdrop failed: ${result.toString()}`);
  }

  lamportsOf(owner: Address): bigint {
    return this.vm.getBalance(owner) ?? 0n;
  }

  /** A classic SPL mint at `mint` (any address: the tests mirror the configured one) with `decimals`. */
  createMint(mint: Address, decimals: number): void {
    this.vm.setAccount({
      address: mint,
      programAddress: TOKEN_PROGRAM_ADDRESS,
      executable: false,
      lamports: lamports(this.vm.minimumBalanceForRentExemption(MINT_SIZE)),
      space: MINT_SIZE,
      data: Uint8Array.from(
        getMintEncoder().encode({
          mintAuthority: none(),
          supply: 10n ** 15n,
          decimals,
          isInitialized: true,
          freezeAuthority: none(),
        }),
      ),
    });
  }

  /** Gives `owner` an associated token account of `mint` holding `amount`. */
  fundTokens(owner: Address, mint: Address, amount: bigint): Address {
    const account = associatedTokenAddress(owner, mint);
    this.vm.setAccount({
      address: account,
      programAddress: TOKEN_PROGRAM_ADDRESS,
      executable: false,
      lamports: lamports(this.vm.minimumBalanceForRentExemption(TOKEN_ACCOUNT_SIZE)),
      space: TOKEN_ACCOUNT_SIZE,
      data: Uint8Array.from(
        getTokenEncoder().encode({
          mint,
          owner,
          amount,
          delegate: none(),
          state: AccountState.Initialized,
          isNative: none(),
          delegatedAmount: 0n,
          closeAuthority: none(),
        }),
      ),
    });
    return account;
  }

  /** The token balance of `owner`'s associated token account of `mint`, or null when it does not exist. */
  tokensOf(owner: Address, mint: Address): bigint | null {
    const account = this.vm.getAccount(associatedTokenAddress(owner, mint));
    if (!account.exists) return null;
    const token = getTokenDecoder().decode(account.data);
    if (token.owner !== owner || token.mint !== mint) throw new Error('not the owner/mint expected');
    return token.amount;
  }

  /** Signs the quote's `serializedTransaction` (base64) with `signer`'s key and executes it. */
  async send(serializedTransaction: string, signer: KeyPairSigner): Promise<SentTransaction> {
    const unsigned = getTransactionDecoder().decode(Buffer.from(serializedTransaction, 'base64'));
    const signed = await signTransaction([signer.keyPair], unsigned);
    const result = this.vm.sendTransaction(signed);
    return result instanceof FailedTransactionMetadata
      ? { ok: false, error: result.toString(), logs: result.meta().logs() }
      : { ok: true, meta: result, logs: result.logs() };
  }

  /**
   * Signs and executes like `send`, and reports the transaction as an RPC's `getTransaction` would: the message,
   * success, fee, slot, time, and the balances before and after of every account it names (lamports, and SPL
   * amounts of the token accounts among them).
   */
  async sendAndRecord(serializedTransaction: string, signer: KeyPairSigner): Promise<SvmTransactionRecord> {
    const unsigned = getTransactionDecoder().decode(Buffer.from(serializedTransaction, 'base64'));
    return this.executeAndRecord(await signTransaction([signer.keyPair], unsigned));
  }

  /** Executes a signed transaction and reports it as `sendAndRecord` does. */
  executeAndRecord(signed: Transaction): SvmTransactionRecord {
    const keys = staticKeysOf(signed);
    const before = this.snapshot(keys);
    const result = this.vm.sendTransaction(signed as Parameters<LiteSVM['sendTransaction']>[0]);
    const failed = result instanceof FailedTransactionMetadata;
    const meta = failed ? result.meta() : result;
    const after = this.snapshot(keys);
    const clock = this.vm.getClock();
    return {
      signature: getBase58Decoder().decode(meta.signature()),
      slot: clock.slot,
      blockTime: Number(clock.unixTimestamp),
      fee: SIGNATURE_FEE,
      failed,
      messageBytes: Uint8Array.from(signed.messageBytes),
      lamports: new Map(
        keys.map((key) => [key, { pre: before.lamports.get(key)!, post: after.lamports.get(key)! }]),
      ),
      tokens: new Map(
        keys.flatMap((key) => {
          const [pre, post] = [before.tokens.get(key), after.tokens.get(key)];
          const account = post ?? pre;
          return account
            ? [
                [
                  key,
                  {
                    mint: account.mint,
                    owner: account.owner,
                    pre: pre?.amount ?? 0n,
                    post: post?.amount ?? 0n,
                  },
                ],
              ]
            : [];
        }),
      ),
    };
  }

  private snapshot(keys: readonly Address[]) {
    const lamports = new Map<string, bigint>();
    const tokens = new Map<string, { mint: string; owner: string; amount: bigint }>();
    for (const key of keys) {
      const account = this.vm.getAccount(key);
      lamports.set(key, account.exists ? account.lamports : 0n);
      if (account.exists && account.programAddress === TOKEN_PROGRAM_ADDRESS && account.data.length === 165) {
        const token = getTokenDecoder().decode(account.data);
        tokens.set(key, { mint: token.mint, owner: token.owner, amount: token.amount });
      }
    }
    return { lamports, tokens };
  }
}

/** The account keys a transaction's message names (no lookup tables), in message order. */
export const staticKeysOf = (transaction: Transaction): readonly Address[] =>
  getCompiledTransactionMessageDecoder().decode(transaction.messageBytes).staticAccounts;

export type SentTransaction =
  | { readonly ok: true; readonly meta: TransactionMetadata; readonly logs: readonly string[] }
  | { readonly ok: false; readonly error: string; readonly logs: readonly string[] };

/** The signature fee LiteSVM charges per signature (the default of the chain: 5000 lamports). */
export const SIGNATURE_FEE = 5000n;

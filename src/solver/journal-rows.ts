import { type Address, type Hash, type Hex, keccak256 } from 'viem';
import type { SqlExecutor } from '../database/database.js';
import type { JournalEntry, TxIntent, TxPurpose, TxState } from './transaction-journal.js';

/** A `solver_transactions` row as the journal reads it. */
export interface JournalRow {
  id: string;
  chain_id: string;
  account: string;
  nonce: string;
  purpose: TxPurpose;
  job_key: string | null;
  request_id: string | null;
  to_address: string;
  value: string;
  data: string;
  tx_hash: string;
  raw_tx: string;
  state: TxState;
}

/**
 * The columns `toEntry` reads. They are cast to text under their own names, so an `ORDER BY id` (or `nonce`) next to
 * them would sort text ('10' before '9'): order by the table's column (`solver_transactions.id`) instead.
 */
export const COLUMNS = `id::text, chain_id::text, account, nonce::text, purpose, job_key, request_id, to_address,
  value::text, data, tx_hash, raw_tx, state`;

/** What a journal entry says about why it was sent. */
export interface EntryMeta {
  readonly purpose: TxPurpose;
  readonly jobKey?: string;
  readonly requestId?: string;
}

/**
 * Reserves `count` consecutive nonces of (chain, account), the first never below what the chain has seen
 * (`chainNonce`); returns the first. The row stays locked until commit, so instances sharing a key never share a
 * nonce.
 */
export async function reserveNonces(
  tx: SqlExecutor,
  chainId: number,
  account: Address,
  chainNonce: bigint,
  count: number,
): Promise<bigint> {
  const { rows } = await tx.query<{ first: string }>(
    `INSERT INTO solver_nonces AS n (chain_id, account, next_nonce) VALUES ($1, $2, $3::bigint + $4)
     ON CONFLICT (chain_id, account) DO UPDATE SET next_nonce = greatest(n.next_nonce, $3::bigint) + $4
     RETURNING (next_nonce - $4)::text AS first`,
    [chainId, account, chainNonce.toString(), count],
  );
  return BigInt(rows[0].first);
}

/** A signed transaction to store: its nonce, what it does and why. */
export interface SignedEntry {
  readonly nonce: bigint;
  readonly intent: TxIntent;
  readonly rawTx: Hex;
  readonly meta: EntryMeta;
}

/** Stores signed transactions, `signed` (held), in one statement: nothing is sent yet. In the order given. */
export async function insertEntries(
  tx: SqlExecutor,
  chainId: number,
  account: Address,
  signed: readonly SignedEntry[],
): Promise<JournalEntry[]> {
  if (signed.length === 0) return [];
  const column = <T>(of: (entry: SignedEntry) => T) => signed.map(of);
  const hashes = column((entry) => keccak256(entry.rawTx));
  const { rows } = await tx.query<JournalRow>(
    `INSERT INTO solver_transactions
       (chain_id, account, nonce, purpose, job_key, request_id, to_address, value, data, tx_hash, raw_tx)
     SELECT $1, $2, * FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[],
                                  $9::text[], $10::text[], $11::text[])
     RETURNING ${COLUMNS}`,
    [
      chainId,
      account,
      column((entry) => entry.nonce.toString()),
      column((entry) => entry.meta.purpose),
      column((entry) => entry.meta.jobKey ?? null),
      column((entry) => entry.meta.requestId ?? null),
      column((entry) => entry.intent.to),
      column((entry) => entry.intent.value.toString()),
      column((entry) => entry.intent.data),
      hashes,
      column((entry) => entry.rawTx),
    ],
  );
  const byHash = new Map(rows.map((row) => [row.tx_hash, toEntry(row)]));
  return hashes.map((hash) => byHash.get(hash)!);
}

/** Stores a signed transaction, `signed` (held): nothing is sent yet. */
export async function insertEntry(
  tx: SqlExecutor,
  chainId: number,
  account: Address,
  nonce: bigint,
  intent: TxIntent,
  rawTx: Hex,
  meta: EntryMeta,
): Promise<JournalEntry> {
  const { rows } = await tx.query<JournalRow>(
    `INSERT INTO solver_transactions
       (chain_id, account, nonce, purpose, job_key, request_id, to_address, value, data, tx_hash, raw_tx)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
    [
      chainId,
      account,
      nonce.toString(),
      meta.purpose,
      meta.jobKey ?? null,
      meta.requestId ?? null,
      intent.to,
      intent.value.toString(),
      intent.data,
      keccak256(rawTx),
      rawTx,
    ],
  );
  return toEntry(rows[0]);
}

export function toEntry(row: JournalRow): JournalEntry {
  return {
    id: row.id,
    chainId: Number(row.chain_id),
    account: row.account as Address,
    nonce: BigInt(row.nonce),
    purpose: row.purpose,
    jobKey: row.job_key,
    requestId: row.request_id,
    to: row.to_address as Address,
    value: BigInt(row.value),
    data: row.data as Hex,
    txHash: row.tx_hash as Hash,
    rawTx: row.raw_tx as Hex,
    state: row.state,
  };
}

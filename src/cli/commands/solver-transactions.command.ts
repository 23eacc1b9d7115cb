import type { Database } from '../../database/database.js';
import {
  flagOption,
  JSON_OPTION,
  type OptionSpecs,
  parseCommandLine,
  stringOption,
} from '../command-line.js';
import { parseLimit, printListing } from '../format.js';
import type { CliOutput } from '../output.js';

const HEADER = ['ID', 'CHAIN', 'NONCE', 'PURPOSE', 'STATE', 'TX HASH', 'AGE', 'SENT', 'NOTE'];
const STATES = ['signed', 'broadcast', 'mined', 'reverted', 'dropped', 'void'];
/** The states of transactions still open: held, or sent and not yet settled. */
const OPEN = ['signed', 'broadcast'];

export const SOLVER_TRANSACTIONS_USAGE =
  'solver:transactions [--state open|signed|broadcast|mined|reverted|dropped|void] [--chain <id>] [--limit N] [--json]';

export const SOLVER_TRANSACTIONS_OPTIONS: OptionSpecs = {
  state: {
    type: 'string',
    value: '<open|signed|broadcast|mined|reverted|dropped|void>',
    description: 'only transactions in this state (open: signed or broadcast)',
  },
  chain: { type: 'string', value: '<id>', description: 'only transactions on this chain' },
  limit: {
    type: 'string',
    value: '<n>',
    description: 'at most n transactions, newest first (default 50, at most 9999)',
  },
  json: JSON_OPTION,
};

interface TransactionsInput {
  readonly states?: readonly string[];
  readonly chainId?: string;
  readonly limit: number;
  readonly json: boolean;
}

/** Pure: what `solver:transactions` was asked for, or the problem with its arguments. */
export function parseSolverTransactionsArgs(args: readonly string[]): TransactionsInput | string {
  const parsed = parseCommandLine(SOLVER_TRANSACTIONS_OPTIONS, args);
  if (typeof parsed === 'string') return parsed;
  if (parsed.positionals.length > 0) return `Unexpected argument ${JSON.stringify(parsed.positionals[0])}`;
  const state = stringOption(parsed, 'state');
  if (state !== undefined && state !== 'open' && !STATES.includes(state)) {
    return `--state must be one of open, ${STATES.join(', ')} (got ${JSON.stringify(state)})`;
  }
  const chainId = stringOption(parsed, 'chain');
  if (chainId !== undefined && !/^[1-9]\d{0,18}$/.test(chainId)) {
    return `--chain must be a chain id, a whole number (got ${JSON.stringify(chainId)})`;
  }
  const limit = parseLimit(stringOption(parsed, 'limit'), 50);
  if (typeof limit === 'string') return limit;
  return {
    states: state === undefined ? undefined : state === 'open' ? OPEN : [state],
    chainId,
    limit,
    json: flagOption(parsed, 'json'),
  };
}

interface TransactionRow {
  id: string;
  chain_id: string;
  account: string;
  nonce: string;
  purpose: string;
  job_key: string | null;
  request_id: string | null;
  tx_hash: string;
  state: string;
  block_number: string | null;
  broadcasts: number;
  replaces: string | null;
  fee_capped: string | null;
  last_error: string | null;
  created_at: Date;
  age_seconds: string;
}

/**
 * `solver:transactions`: the transaction journal, newest first (docs/settlement.md, "Transaction journal"): what Ferry
 * signed, sent and settled, with why an open one waits (`fee_capped`), what a fee-bumped copy replaces, and the last
 * broadcast error. Read-only.
 */
export async function listSolverTransactionsCommand(
  db: Database,
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  const input = parseSolverTransactionsArgs(args);
  if (typeof input === 'string') {
    output.err(input);
    output.err(`Usage: npm run cli -- ${SOLVER_TRANSACTIONS_USAGE}`);
    return 1;
  }
  const { rows } = await db.query<TransactionRow>(
    `SELECT id::text, chain_id::text, account, nonce::text, purpose, job_key, request_id, tx_hash, state,
            block_number::text, broadcasts, replaces::text, fee_capped, last_error, created_at,
            floor(extract(epoch FROM now() - created_at))::bigint::text AS age_seconds
       FROM solver_transactions
      WHERE ($1::text[] IS NULL OR state = ANY($1::text[])) AND ($2::bigint IS NULL OR chain_id = $2::bigint)
      ORDER BY solver_transactions.id DESC LIMIT $3`,
    [input.states ?? null, input.chainId ?? null, input.limit],
  );
  printListing(output.out, rows, {
    json: input.json,
    empty: 'No journaled transactions.',
    header: HEADER,
    cells: (row) => [
      row.id,
      row.chain_id,
      row.nonce,
      row.purpose,
      row.state,
      row.tx_hash,
      age(Number(row.age_seconds)),
      String(row.broadcasts),
      noteOf(row),
    ],
    asJson: transactionJson,
  });
  return 0;
}

/** What an operator reads first about a transaction: why it waits, what it replaces, or its last broadcast error. */
function noteOf(row: TransactionRow): string {
  const notes = [
    row.fee_capped ? `at the fee cap: ${row.fee_capped}` : null,
    row.replaces ? `replaces ${row.replaces}` : null,
    row.last_error ? `last error: ${row.last_error}` : null,
  ].filter((note): note is string => note !== null);
  return notes.length === 0 ? '-' : notes.join('; ').split('\n')[0].slice(0, 100);
}

function age(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7_200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3_600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** A transaction as `--json` prints it. */
const transactionJson = (row: TransactionRow) => ({
  id: row.id,
  chainId: Number(row.chain_id),
  account: row.account,
  nonce: row.nonce,
  purpose: row.purpose,
  jobKey: row.job_key,
  requestId: row.request_id,
  txHash: row.tx_hash,
  state: row.state,
  blockNumber: row.block_number,
  broadcasts: row.broadcasts,
  replaces: row.replaces,
  feeCapped: row.fee_capped,
  lastError: row.last_error,
  createdAt: row.created_at,
});

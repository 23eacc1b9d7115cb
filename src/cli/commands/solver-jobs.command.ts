import type { JobRow, SolverJobs } from '../../solver/solver-jobs.js';
import {
  flagOption,
  JSON_OPTION,
  type OptionSpecs,
  parseCommandLine,
  stringOption,
} from '../command-line.js';
import { parseLimit, printListing } from '../format.js';
import type { CliOutput } from '../output.js';

const HEADER = ['JOB', 'STATE', 'ATTEMPTS', 'NEXT ATTEMPT', 'REASON', 'LAST ERROR'];
const STATES = ['pending', 'sent', 'done', 'failed'];

export const SOLVER_JOBS_USAGE = 'solver:jobs [--state pending|sent|done|failed] [--limit N] [--json]';

export const SOLVER_JOBS_OPTIONS: OptionSpecs = {
  state: { type: 'string', value: '<pending|sent|done|failed>', description: 'only jobs in this state' },
  limit: {
    type: 'string',
    value: '<n>',
    description: 'at most n jobs, newest first (default 50, at most 9999)',
  },
  json: JSON_OPTION,
};

/** Pure: what `solver:jobs` was asked for, or the problem with its arguments. */
export function parseSolverJobsArgs(
  args: readonly string[],
): { readonly state?: string; readonly limit: number; readonly json: boolean } | string {
  const parsed = parseCommandLine(SOLVER_JOBS_OPTIONS, args);
  if (typeof parsed === 'string') return parsed;
  if (parsed.positionals.length > 0) return `Unexpected argument ${JSON.stringify(parsed.positionals[0])}`;
  const state = stringOption(parsed, 'state');
  if (state !== undefined && !STATES.includes(state)) {
    return `--state must be one of ${STATES.join(', ')} (got ${JSON.stringify(state)})`;
  }
  const limit = parseLimit(stringOption(parsed, 'limit'), 50);
  if (typeof limit === 'string') return limit;
  return { state, limit, json: flagOption(parsed, 'json') };
}

/** `solver:jobs`: the solver's jobs, newest first; a job's key is what `solver:retry` takes. */
export async function listSolverJobsCommand(
  jobs: Pick<SolverJobs, 'list'>,
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  const input = parseSolverJobsArgs(args);
  if (typeof input === 'string') {
    output.err(input);
    output.err(`Usage: npm run cli -- ${SOLVER_JOBS_USAGE}`);
    return 1;
  }
  const rows = await jobs.list({ state: input.state, limit: input.limit });
  printListing(output.out, rows, {
    json: input.json,
    empty: 'No solver jobs.',
    header: HEADER,
    cells: (row) => [
      jobKeyOf(row),
      row.state,
      String(row.attempts),
      row.state === 'pending' || row.state === 'sent' ? row.next_attempt_at.toISOString() : '-',
      row.reason ?? '-',
      (row.last_error ?? '-').split('\n')[0].slice(0, 80),
    ],
    asJson: jobJson,
  });
  return 0;
}

/** The key `solver:retry` takes: `<kind>:<requestId>[:<depositKey>]`. */
const jobKeyOf = (row: JobRow): string =>
  [row.kind, row.request_id, row.deposit_key].filter(Boolean).join(':');

/** A job as `--json` prints it. */
const jobJson = (row: JobRow) => ({
  key: jobKeyOf(row),
  kind: row.kind,
  requestId: row.request_id,
  depositKey: row.deposit_key,
  state: row.state,
  reason: row.reason,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  leasedUntil: row.leased_until,
  lastError: row.last_error,
});

/** `solver:retry <job>`: a `failed` job is due again now, with a fresh attempt count. Exit 1 when none matched. */
export async function retrySolverJobCommand(
  jobs: Pick<SolverJobs, 'retry'>,
  key: string,
  output: CliOutput,
): Promise<number> {
  const reset = await jobs.retry(key);
  if (reset === 0) {
    output.err(`No failed job ${key} (see npm run cli -- solver:jobs --state failed)`);
    return 1;
  }
  output.out(`Job ${key} is due again (${reset} reset).`);
  return 0;
}

import type { SolverJobs } from '../../solver/solver-jobs.js';
import { formatTable } from '../format.js';
import type { CliOutput } from '../output.js';

const HEADER = ['JOB', 'STATE', 'ATTEMPTS', 'NEXT ATTEMPT', 'REASON', 'LAST ERROR'];
const STATES = ['pending', 'sent', 'done', 'failed'];

export const SOLVER_JOBS_USAGE = 'solver:jobs [--state pending|sent|done|failed] [--limit N]';

/** The problem with `solver:jobs` arguments, or undefined. */
export function checkSolverJobsArgs(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === '--state' && STATES.includes(value ?? '')) continue;
    if (flag === '--limit' && /^[1-9]\d{0,3}$/.test(value ?? '')) continue;
    return `unexpected ${flag ?? ''} ${value ?? ''}`.trim();
  }
  return undefined;
}

/** `solver:jobs`: the solver's jobs, newest first; a job's key is what `solver:retry` takes. */
export async function listSolverJobsCommand(
  jobs: Pick<SolverJobs, 'list'>,
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  const option = (flag: string) => {
    const at = args.indexOf(flag);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const rows = await jobs.list({ state: option('--state'), limit: Number(option('--limit') ?? 50) });
  if (rows.length === 0) {
    output.out('No solver jobs.');
    return 0;
  }
  const table = rows.map((row) => [
    [row.kind, row.request_id, row.deposit_key].filter(Boolean).join(':'),
    row.state,
    String(row.attempts),
    row.state === 'pending' || row.state === 'sent' ? row.next_attempt_at.toISOString() : '-',
    row.reason ?? '-',
    (row.last_error ?? '-').split('\n')[0].slice(0, 80),
  ]);
  for (const line of formatTable([HEADER, ...table])) output.out(line);
  return 0;
}

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

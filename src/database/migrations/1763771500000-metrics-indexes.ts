import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the gauges `GET /metrics` reads at every scrape (src/metrics/state-metrics.ts), so a scrape costs the
 * open work, not the history: the solver's jobs not done (a partial index: done jobs, one or more per request, are
 * never read), and the webhook attempts of the last minutes.
 */
export class MetricsIndexes1763771500000 implements MigrationInterface {
  name = 'MetricsIndexes1763771500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX solver_jobs_open_idx ON solver_jobs (kind, state) WHERE state <> 'done'`,
    );
    await queryRunner.query('CREATE INDEX webhook_attempts_attempted_idx ON webhook_attempts (attempted_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX webhook_attempts_attempted_idx');
    await queryRunner.query('DROP INDEX solver_jobs_open_idx');
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chains: the watcher's block cursors (one row per chain: the last block scanned for deposits seen, and the last
 * final block scanned for deposits confirmed), and the solver's jobs (one row per request and leg, claimed with
 * `FOR UPDATE SKIP LOCKED`; a job remembers the transaction it sent so a restart waits for it instead of sending
 * another).
 */
export class Chains1763770400000 implements MigrationInterface {
  name = 'Chains1763770400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chain_cursors (
        chain_id        bigint PRIMARY KEY,
        seen_block      bigint NOT NULL,
        final_block     bigint NOT NULL,
        updated_at      timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE solver_jobs (
        request_id      text NOT NULL,
        kind            text NOT NULL CHECK (kind IN ('fill', 'refund')),
        state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'done', 'failed')),
        reason          text NULL,
        chain_id        bigint NULL,
        tx_hash         text NULL,
        attempts        integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        leased_until    timestamptz NULL,
        last_error      text NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (request_id, kind)
      )`);
    await queryRunner.query(
      `CREATE INDEX solver_jobs_due_idx ON solver_jobs (next_attempt_at) WHERE state IN ('pending', 'sent')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE solver_jobs');
    await queryRunner.query('DROP TABLE chain_cursors');
  }
}

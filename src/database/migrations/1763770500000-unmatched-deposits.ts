import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deposits the depository received that no request can take (an id no quote issued, a second deposit for the same
 * id, a deposit confirmed after its request ended): kept here, one row per log, and returned to their depositor by
 * the solver, so none is lost.
 */
export class UnmatchedDeposits1763770500000 implements MigrationInterface {
  name = 'UnmatchedDeposits1763770500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE unmatched_deposits (
        chain_id        bigint NOT NULL,
        tx_hash         text NOT NULL,
        log_index       integer NOT NULL,
        request_id      text NOT NULL,
        depositor       text NOT NULL,
        currency        text NOT NULL,
        amount          numeric(78, 0) NOT NULL,
        reason          text NOT NULL,
        state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'done', 'failed')),
        refund_tx_hash  text NULL,
        attempts        integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        leased_until    timestamptz NULL,
        last_error      text NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (chain_id, tx_hash, log_index)
      )`);
    await queryRunner.query(
      `CREATE INDEX unmatched_deposits_due_idx ON unmatched_deposits (next_attempt_at) WHERE state IN ('pending', 'sent')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE unmatched_deposits');
  }
}

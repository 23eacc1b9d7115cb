import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The transaction journal and fenced solver jobs (docs/settlement.md, "Transaction journal").
 *
 * - `solver_nonces`: the next nonce of each (chain, account), reserved under a row lock, so several instances
 *   sharing a key never sign two transactions with one nonce.
 * - `solver_transactions`: every transaction Ferry signs, stored (raw bytes and hash) before it is broadcast, so a
 *   crash re-broadcasts the same transaction instead of signing a second payment.
 * - `solver_jobs` gains a deposit key (a refund belongs to a deposit, not to a request) and a fencing token
 *   (`fence`): each claim increments it, and every write of a worker names the token it claimed with, so a worker
 *   whose lease ran out can no longer record or journal anything. `unmatched_deposits` gains the same token.
 */
export class TransactionJournal1763770600000 implements MigrationInterface {
  name = 'TransactionJournal1763770600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE solver_nonces (
        chain_id   bigint NOT NULL,
        account    text NOT NULL,
        next_nonce bigint NOT NULL,
        PRIMARY KEY (chain_id, account)
      )`);
    await queryRunner.query(`
      CREATE TABLE solver_transactions (
        id              bigserial PRIMARY KEY,
        chain_id        bigint NOT NULL,
        account         text NOT NULL,
        nonce           bigint NOT NULL,
        purpose         text NOT NULL,
        job_key         text NULL,
        request_id      text NULL,
        to_address      text NOT NULL,
        value           numeric(78, 0) NOT NULL,
        data            text NOT NULL,
        tx_hash         text NOT NULL UNIQUE,
        raw_tx          text NOT NULL,
        state           text NOT NULL DEFAULT 'signed'
                        CHECK (state IN ('signed', 'broadcast', 'mined', 'reverted', 'dropped', 'void')),
        block_number    bigint NULL,
        broadcasts      integer NOT NULL DEFAULT 0,
        last_error      text NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      'CREATE INDEX solver_transactions_nonce_idx ON solver_transactions (chain_id, account, nonce)',
    );
    await queryRunner.query('CREATE INDEX solver_transactions_job_idx ON solver_transactions (job_key)');
    await queryRunner.query(
      `CREATE INDEX solver_transactions_open_idx ON solver_transactions (chain_id, account)
        WHERE state IN ('signed', 'broadcast')`,
    );

    await queryRunner.query(`ALTER TABLE solver_jobs ADD COLUMN deposit_key text NOT NULL DEFAULT ''`);
    await queryRunner.query('ALTER TABLE solver_jobs ADD COLUMN fence bigint NOT NULL DEFAULT 0');
    await queryRunner.query('ALTER TABLE solver_jobs DROP CONSTRAINT solver_jobs_pkey');
    await queryRunner.query('ALTER TABLE solver_jobs ADD PRIMARY KEY (request_id, kind, deposit_key)');
    await queryRunner.query('ALTER TABLE unmatched_deposits ADD COLUMN fence bigint NOT NULL DEFAULT 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE unmatched_deposits DROP COLUMN fence');
    await queryRunner.query('ALTER TABLE solver_jobs DROP CONSTRAINT solver_jobs_pkey');
    await queryRunner.query(`DELETE FROM solver_jobs WHERE deposit_key <> ''`);
    await queryRunner.query('ALTER TABLE solver_jobs ADD PRIMARY KEY (request_id, kind)');
    await queryRunner.query('ALTER TABLE solver_jobs DROP COLUMN fence');
    await queryRunner.query('ALTER TABLE solver_jobs DROP COLUMN deposit_key');
    await queryRunner.query('DROP TABLE solver_transactions');
    await queryRunner.query('DROP TABLE solver_nonces');
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deposit addresses (docs/deposit-addresses.md):
 * - `deposit_addresses`: every address a quote handed out, per chain, written before the quote is recorded so the
 *   watcher knows it before anyone can pay it; watched until `watch_until` (the quote's expiry plus a grace period,
 *   so late transfers are still seen and given back). `transfer_seen`: a transfer was recorded for it; until then,
 *   and until `expires_at` (the quote's expiry), its balance is also checked (value sent from inside a contract).
 * - `solver_jobs.kind` gains `sweep` (a taken transfer into the depository) and `give-back` (funds the request
 *   cannot use, back to `refundTo` or the depositor).
 */
export class DepositAddresses1763770700000 implements MigrationInterface {
  name = 'DepositAddresses1763770700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE deposit_addresses (
        chain_id    bigint NOT NULL,
        address     text NOT NULL,
        request_id  text NOT NULL,
        watch_until timestamptz NOT NULL,
        expires_at  timestamptz NOT NULL,
        transfer_seen boolean NOT NULL DEFAULT false,
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (chain_id, address)
      )`);
    await queryRunner.query(
      'CREATE INDEX deposit_addresses_watch_idx ON deposit_addresses (chain_id, watch_until)',
    );
    await queryRunner.query('ALTER TABLE solver_jobs DROP CONSTRAINT IF EXISTS solver_jobs_kind_check');
    await queryRunner.query(
      `ALTER TABLE solver_jobs ADD CONSTRAINT solver_jobs_kind_check CHECK (kind IN ('fill', 'refund', 'sweep', 'give-back'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM solver_jobs WHERE kind IN ('sweep', 'give-back')`);
    await queryRunner.query('ALTER TABLE solver_jobs DROP CONSTRAINT IF EXISTS solver_jobs_kind_check');
    await queryRunner.query(
      `ALTER TABLE solver_jobs ADD CONSTRAINT solver_jobs_kind_check CHECK (kind IN ('fill', 'refund'))`,
    );
    await queryRunner.query('DROP TABLE deposit_addresses');
  }
}

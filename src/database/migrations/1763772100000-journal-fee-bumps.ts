import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fee bumps in the transaction journal (docs/settlement.md, "Transaction journal"; decision 0026).
 *
 * - `replaces`: the entry a fee-bumped copy replaces (same nonce, same to, value and data; higher fees). Whichever
 *   of the two mines is the payment.
 * - `fee_capped`: why an open entry that cannot mine at the chain's base fee is not replaced: the fee its
 *   replacement would need passes the chain's cap (`gas.maxFeePerGasWei`). Null once it is replaced or no longer
 *   stuck; `ferry_journal_fee_capped` counts the open ones.
 */
export class JournalFeeBumps1763772100000 implements MigrationInterface {
  name = 'JournalFeeBumps1763772100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE solver_transactions ADD COLUMN replaces bigint NULL REFERENCES solver_transactions (id)',
    );
    await queryRunner.query('ALTER TABLE solver_transactions ADD COLUMN fee_capped text NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE solver_transactions DROP COLUMN fee_capped');
    await queryRunner.query('ALTER TABLE solver_transactions DROP COLUMN replaces');
  }
}

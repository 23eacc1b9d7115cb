import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `unmatched_deposits.state` `dust`: a deposit worth less than the gas its return would cost is not returned (else
 * deposits of one wei for unknown ids drain the solver, a transaction each). It stays in the depository, kept here
 * for operators.
 */
export class UnmatchedDepositsDust1763771800000 implements MigrationInterface {
  name = 'UnmatchedDepositsDust1763771800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE unmatched_deposits DROP CONSTRAINT unmatched_deposits_state_check');
    await queryRunner.query(
      `ALTER TABLE unmatched_deposits ADD CONSTRAINT unmatched_deposits_state_check
         CHECK (state IN ('pending', 'sent', 'done', 'failed', 'dust'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE unmatched_deposits SET state = 'failed' WHERE state = 'dust'`);
    await queryRunner.query('ALTER TABLE unmatched_deposits DROP CONSTRAINT unmatched_deposits_state_check');
    await queryRunner.query(
      `ALTER TABLE unmatched_deposits ADD CONSTRAINT unmatched_deposits_state_check
         CHECK (state IN ('pending', 'sent', 'done', 'failed'))`,
    );
  }
}

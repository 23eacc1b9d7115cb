import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `solver_jobs.kind` gains `attest`: obtaining the oracles' attestation of a confirmed deposit, a fill or a refund
 * and recording it on the request (docs/oracle.md, "Ferry and its oracles"). Keyed by its subject
 * (`deposit:<chainId>:<txHash>:<logIndex>`, `fill:<chainId>:<txHash>`, `refund:<chainId>:<txHash>`).
 */
export class OracleAttestations1763771400000 implements MigrationInterface {
  name = 'OracleAttestations1763771400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE solver_jobs DROP CONSTRAINT IF EXISTS solver_jobs_kind_check');
    await queryRunner.query(
      `ALTER TABLE solver_jobs ADD CONSTRAINT solver_jobs_kind_check CHECK (kind IN ('fill', 'refund', 'sweep', 'give-back', 'attest'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM solver_jobs WHERE kind = 'attest'`);
    await queryRunner.query('ALTER TABLE solver_jobs DROP CONSTRAINT IF EXISTS solver_jobs_kind_check');
    await queryRunner.query(
      `ALTER TABLE solver_jobs ADD CONSTRAINT solver_jobs_kind_check CHECK (kind IN ('fill', 'refund', 'sweep', 'give-back'))`,
    );
  }
}

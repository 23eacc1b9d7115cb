import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sponsor address of an API key with fee sponsorship: the app-fee account whose balance pays the components its
 * quotes sponsor (docs/app-fees.md, "Sponsorship money"). Null: the key sponsors from the configured cap alone.
 */
export class ApiKeySponsorAddress1763771200000 implements MigrationInterface {
  name = 'ApiKeySponsorAddress1763771200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_keys ADD COLUMN sponsor_address text NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN sponsor_address`);
  }
}

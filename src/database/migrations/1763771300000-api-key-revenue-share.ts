import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revenue-share eligibility of an API key (docs/api-keys.md, "Revenue share"): the operator's record that the
 * integrator passed KYB, and the EVM address whose app-fee balance receives the share. A key earns a share only with
 * both (and enough trailing volume).
 */
export class ApiKeyRevenueShare1763771300000 implements MigrationInterface {
  name = 'ApiKeyRevenueShare1763771300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE api_keys ADD COLUMN kyb_verified boolean NOT NULL DEFAULT false,
         ADD COLUMN revenue_share_address text NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE api_keys DROP COLUMN revenue_share_address, DROP COLUMN kyb_verified`,
    );
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys. The plaintext key is never stored: `key_hash` (HMAC-SHA256 under a sub-key of API_KEY_ENCRYPTION_KEY)
 * finds a presented key, `key_ciphertext` (AES-256-GCM, iv ‖ tag ‖ ciphertext in base64) lets the webhook signer
 * recover it, `key_prefix` (its first 10 characters) is shown to operators. See docs/api-keys.md.
 */
export class ApiKeys1763770200000 implements MigrationInterface {
  name = 'ApiKeys1763770200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id                      uuid PRIMARY KEY,
        label                   text NOT NULL,
        key_prefix              text NOT NULL,
        key_hash                text NOT NULL,
        key_ciphertext          text NOT NULL,
        rate_limit_per_minute   integer NULL,
        fee_sponsorship_enabled boolean NOT NULL DEFAULT false,
        webhook_url             text NULL,
        webhook_headers         jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at              timestamptz NOT NULL DEFAULT now(),
        revoked_at              timestamptz NULL,
        CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash),
        CONSTRAINT api_keys_rate_limit_positive CHECK (rate_limit_per_minute IS NULL OR rate_limit_per_minute > 0),
        CONSTRAINT api_keys_webhook_headers_object CHECK (jsonb_typeof(webhook_headers) = 'object')
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_key_prefix_idx ON api_keys (key_prefix)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE api_keys`);
  }
}

import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../common/http/api-error.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { DATABASE, type Database } from '../database/database.js';
import { generateApiKey, KEY_PREFIX_LENGTH, keyPrefixOf, looksLikeApiKey } from './api-key-crypto.js';
import { type ReencryptionResult, reencryptApiKeys } from './api-key-reencryption.js';
import { ApiKeyRing } from './api-key-ring.js';
import { type CreateApiKeyInput, validateApiKeyInput, validateRevenueShare } from './api-key-input.js';

/** What the guard attaches to a request: everything a route needs to know about the caller's key. */
export interface AuthenticatedApiKey {
  readonly id: string;
  readonly label: string;
  readonly keyPrefix: string;
  /** The key's own limit; null = the configured default. */
  readonly rateLimitPerMinute: number | null;
  readonly feeSponsorshipEnabled: boolean;
  /** The app-fee account that pays what the key's quotes sponsor (lowercase), or null. */
  readonly sponsorAddress: string | null;
  /** Revenue share eligibility (docs/api-keys.md): the operator recorded a completed KYB verification. */
  readonly kybVerified: boolean;
  /** The EVM address (lowercase) whose app-fee balance receives the key's revenue share, or null. */
  readonly revenueShareAddress: string | null;
}

/** What an operator sets for revenue share; an absent field is left as it is, `null` clears the address. */
export interface RevenueShareSettings {
  readonly kybVerified?: boolean;
  readonly payoutAddress?: string | null;
}

/** A key as operators see it: no secret (the webhook headers may hold one: only their names are shown). */
export interface ApiKeySummary extends AuthenticatedApiKey {
  readonly webhookUrl: string | null;
  readonly webhookHeaderNames: readonly string[];
  /** Set when the endpoint answered 410 Gone (or an operator disabled it); deliveries stop until it is set again. */
  readonly webhookDisabledAt: Date | null;
  readonly webhookDisabledReason: string | null;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

/** A key with its webhook header values decrypted: for the webhook sender only (`get`). */
export interface ApiKeyDetails extends ApiKeySummary {
  readonly webhookHeaders: Readonly<Record<string, string>>;
}

/** The answer to `create`: the only time the plaintext key is available without the secret. */
export interface CreatedApiKey extends ApiKeySummary {
  readonly key: string;
}

export interface RevokeResult {
  readonly apiKey: ApiKeySummary;
  /** It had been revoked before (its `revokedAt` is that earlier time). */
  readonly alreadyRevoked: boolean;
}

interface ApiKeyRow {
  id: string;
  label: string;
  key_prefix: string;
  rate_limit_per_minute: number | null;
  fee_sponsorship_enabled: boolean;
  sponsor_address: string | null;
  kyb_verified: boolean;
  revenue_share_address: string | null;
  webhook_url: string | null;
  webhook_headers: StoredHeaders;
  created_at: Date;
  revoked_at: Date | null;
  webhook_disabled_at: Date | null;
  webhook_disabled_reason: string | null;
}

const COLUMNS = `id, label, key_prefix, rate_limit_per_minute, fee_sponsorship_enabled, sponsor_address, webhook_url,
  webhook_headers, created_at, revoked_at, webhook_disabled_at, webhook_disabled_reason, kyb_verified,
  revenue_share_address`;
/** What `toAuthenticated` reads. */
type AuthenticatedRow = Pick<
  ApiKeyRow,
  | 'id'
  | 'label'
  | 'key_prefix'
  | 'rate_limit_per_minute'
  | 'fee_sponsorship_enabled'
  | 'sponsor_address'
  | 'kyb_verified'
  | 'revenue_share_address'
>;
const AUTHENTICATED_COLUMNS = `id, label, key_prefix, rate_limit_per_minute, fee_sponsorship_enabled, sponsor_address,
  kyb_verified, revenue_share_address`;
/**
 * `api_keys.webhook_headers`: header name → `{sealed}` (base64 AES-256-GCM, `encryptWebhookHeaderValue`). A plain
 * string is a value stored in clear before header values were encrypted: still read, encrypted at start-up
 * (`encryptClearWebhookHeaders`) and never written again.
 */
export type StoredHeaders = Record<string, string | { readonly sealed: string }>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * API keys in the `api_keys` table. The plaintext key is returned by `create` once and by `reveal` (for the webhook
 * signer); it is stored only as a lookup hash and an authenticated ciphertext, and is never logged. Webhook header
 * values are sealed the same way and decrypted only by `get` (for the webhook sender); everything else shows their
 * names.
 */
@Injectable()
export class ApiKeysService implements OnApplicationBootstrap {
  private readonly ring: ApiKeyRing;

  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'apiKeys'>,
  ) {
    this.ring = new ApiKeyRing(config.apiKeys.encryptionKey, config.apiKeys.previousEncryptionKey);
  }

  /** The server encrypts header values a release before this one stored in clear, before it serves anything. */
  async onApplicationBootstrap(): Promise<void> {
    await this.encryptClearWebhookHeaders();
  }

  /** Creates a key; throws ApiError INVALID_INPUT for bad settings. */
  async create(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const valid = validateApiKeyInput(input);
    const id = randomUUID();
    const key = generateApiKey();
    const { rows } = await this.db.query<ApiKeyRow>(
      `INSERT INTO api_keys (id, label, key_prefix, key_hash, key_ciphertext, rate_limit_per_minute,
         fee_sponsorship_enabled, webhook_url, webhook_headers, sponsor_address)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10)
       RETURNING ${COLUMNS}`,
      [
        id,
        valid.label,
        keyPrefixOf(key),
        this.ring.hash(key),
        this.ring.sealKey(key, id),
        valid.rateLimitPerMinute,
        valid.feeSponsorshipEnabled,
        valid.webhookUrl,
        JSON.stringify(this.sealHeaders(id, valid.webhookHeaders)),
        valid.sponsorAddress,
      ],
    );
    return { ...toSummary(rows[0]), key };
  }

  /** Every key, oldest first, revoked ones included; no secrets. */
  async list(): Promise<ApiKeySummary[]> {
    const { rows } = await this.db.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`,
    );
    return rows.map(toSummary);
  }

  /**
   * One key with its webhook header values decrypted, or null: for the webhook sender, which puts them on the wire
   * and nowhere else. Throws (naming the header, never its value) when a value does not decrypt under the
   * configured secret.
   */
  async get(id: string): Promise<ApiKeyDetails | null> {
    if (!UUID.test(id)) return null;
    const { rows } = await this.db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    if (!rows[0]) return null;
    return { ...toSummary(rows[0]), webhookHeaders: this.openHeaders(rows[0].id, rows[0].webhook_headers) };
  }

  /**
   * Encrypts the header values still stored in clear (written before values were encrypted); resolves to the
   * number of keys changed. Idempotent and safe beside other instances doing the same: a row is rewritten only if
   * it is still what was read.
   */
  async encryptClearWebhookHeaders(): Promise<number> {
    const { rows } = await this.db.query<{ id: string; webhook_headers: StoredHeaders }>(
      `SELECT id, webhook_headers FROM api_keys
        WHERE EXISTS (SELECT 1 FROM jsonb_each(webhook_headers) h WHERE jsonb_typeof(h.value) = 'string')`,
    );
    let changed = 0;
    for (const row of rows) {
      const sealed = this.sealHeaders(row.id, row.webhook_headers);
      const result = await this.db.query(
        'UPDATE api_keys SET webhook_headers = $2::jsonb WHERE id = $1 AND webhook_headers = $3::jsonb',
        [row.id, JSON.stringify(sealed), JSON.stringify(row.webhook_headers)],
      );
      changed += result.rowCount;
    }
    return changed;
  }

  /**
   * The key a request presents, or null when it is unknown or revoked. One indexed lookup by hash; strings that
   * cannot be a Ferry key are refused without touching the database.
   */
  async authenticate(presentedKey: string): Promise<AuthenticatedApiKey | null> {
    if (!looksLikeApiKey(presentedKey)) return null;
    const { rows } = await this.db.query<AuthenticatedRow>(
      // Under the current secret, or the previous one while it is rotated (the same hash twice otherwise).
      `SELECT ${AUTHENTICATED_COLUMNS} FROM api_keys WHERE key_hash IN ($1, $2) AND revoked_at IS NULL`,
      [...this.ring.lookupHashes(presentedKey)],
      // Every keyed request runs it: prepared once per connection, only the columns a request needs.
      { name: 'ferry_authenticate_api_key' },
    );
    return rows[0] ? toAuthenticated(rows[0]) : null;
  }

  /**
   * Revokes a key named by its id, its displayed prefix (`fk_` + 7) or the full key. Idempotent. Throws ApiError
   * NOT_FOUND when nothing matches and INVALID_INPUT when a prefix matches several keys.
   */
  async revoke(idOrPrefix: string): Promise<RevokeResult> {
    const target = await this.resolve(idOrPrefix.trim());
    if (target.revoked_at) return { apiKey: toSummary(target), alreadyRevoked: true };
    const { rows } = await this.db.query<ApiKeyRow>(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`,
      [target.id],
    );
    return { apiKey: toSummary(rows[0]), alreadyRevoked: false };
  }

  /**
   * The plaintext key of `id`, for signing its webhooks. Decrypts, then checks the result against the lookup hash
   * (constant time). Throws ApiError NOT_FOUND for an unknown id, and an Error when the row does not decrypt under
   * the configured secrets (a changed API_KEY_ENCRYPTION_KEY without its previous value, or tampering).
   */
  async reveal(id: string): Promise<string> {
    const { rows } = UUID.test(id)
      ? await this.db.query<{ key_hash: string; key_ciphertext: string }>(
          'SELECT key_hash, key_ciphertext FROM api_keys WHERE id = $1',
          [id],
        )
      : { rows: [] };
    if (!rows[0]) throw new ApiError('NOT_FOUND', `No API key ${id}`);
    return this.ring.openKey({ id, keyHash: rows[0].key_hash, keyCiphertext: rows[0].key_ciphertext }).key;
  }

  /**
   * Rewrites every key and webhook header value still under `API_KEY_ENCRYPTION_KEY_PREVIOUS` under
   * `API_KEY_ENCRYPTION_KEY` (`npm run cli -- api-keys:reencrypt`; docs/operations.md, "Key rotation").
   */
  reencrypt(): Promise<ReencryptionResult> {
    return reencryptApiKeys(this.db, this.ring);
  }

  /**
   * Sets (or replaces) the key's webhook endpoint and custom headers, re-enabling it if it was disabled. The URL and
   * headers are checked by `check` first (the webhook target policy), so a refused target is never stored.
   */
  async setWebhook(
    idOrPrefix: string,
    endpoint: { url: string; headers?: Readonly<Record<string, string>> },
    check: (url: string, headers: Readonly<Record<string, string>>) => Promise<string | null>,
  ): Promise<ApiKeySummary> {
    const row = await this.resolve(idOrPrefix);
    const headers = endpoint.headers ?? {};
    const problem = await check(endpoint.url, headers);
    if (problem) throw new ApiError('INVALID_INPUT', problem);
    const { rows } = await this.db.query<ApiKeyRow>(
      `UPDATE api_keys SET webhook_url = $2, webhook_headers = $3::jsonb, webhook_disabled_at = NULL,
              webhook_disabled_reason = NULL
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [row.id, endpoint.url, JSON.stringify(this.sealHeaders(row.id, headers))],
    );
    return toSummary(rows[0]);
  }

  /**
   * Sets a key's revenue-share eligibility (the operator's KYB record and the payout address). Throws ApiError
   * INVALID_INPUT for a malformed address or flag, NOT_FOUND when no key matches.
   */
  async setRevenueShare(idOrPrefix: string, settings: RevenueShareSettings): Promise<ApiKeySummary> {
    const valid = validateRevenueShare(settings);
    const row = await this.resolve(idOrPrefix.trim());
    const { rows } = await this.db.query<ApiKeyRow>(
      `UPDATE api_keys SET kyb_verified = coalesce($2, kyb_verified),
              revenue_share_address = CASE WHEN $3::boolean THEN $4 ELSE revenue_share_address END
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [row.id, valid.kybVerified ?? null, valid.payoutAddress !== undefined, valid.payoutAddress ?? null],
    );
    return toSummary(rows[0]);
  }

  /** One key by id, prefix or full key (NOT_FOUND, INVALID_INPUT as `revoke`). */
  async find(idOrPrefix: string): Promise<ApiKeySummary> {
    return toSummary(await this.resolve(idOrPrefix.trim()));
  }

  /** Removes the key's webhook endpoint; no new deliveries are made for it. */
  async removeWebhook(idOrPrefix: string): Promise<ApiKeySummary> {
    const row = await this.resolve(idOrPrefix);
    const { rows } = await this.db.query<ApiKeyRow>(
      `UPDATE api_keys SET webhook_url = NULL, webhook_headers = '{}'::jsonb, webhook_disabled_at = NULL,
              webhook_disabled_reason = NULL
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [row.id],
    );
    return toSummary(rows[0]);
  }

  /** Stops deliveries to the key's endpoint (its receiver answered 410 Gone), keeping the settings for an operator. */
  async disableWebhook(id: string, reason: string, at: Date): Promise<void> {
    await this.db.query(
      `UPDATE api_keys SET webhook_disabled_at = $2, webhook_disabled_reason = $3
        WHERE id = $1 AND webhook_disabled_at IS NULL`,
      [id, at.toISOString(), reason],
    );
  }

  /** `headers` with every value still in clear sealed; values already sealed are kept as they are. */
  private sealHeaders(apiKeyId: string, headers: Readonly<StoredHeaders>): StoredHeaders {
    return Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [
        name,
        typeof value === 'string' ? { sealed: this.ring.sealHeader(value, apiKeyId, name) } : value,
      ]),
    );
  }

  private openHeaders(apiKeyId: string, stored: StoredHeaders | null): Record<string, string> {
    return Object.fromEntries(
      Object.entries(stored ?? {}).map(([name, value]) => [
        name,
        typeof value === 'string' ? value : this.ring.openHeader(value.sealed, apiKeyId, name).value,
      ]),
    );
  }

  private async resolve(idOrPrefix: string): Promise<ApiKeyRow> {
    let rows: ApiKeyRow[] = [];
    if (UUID.test(idOrPrefix)) {
      rows = (await this.db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [idOrPrefix]))
        .rows;
    } else if (looksLikeApiKey(idOrPrefix)) {
      rows = (
        await this.db.query<ApiKeyRow>(
          `SELECT ${COLUMNS} FROM api_keys WHERE key_hash IN ($1, $2)`,
          this.ring.lookupHashes(idOrPrefix),
        )
      ).rows;
    } else if (idOrPrefix.length === KEY_PREFIX_LENGTH) {
      rows = (
        await this.db.query<ApiKeyRow>(
          `SELECT ${COLUMNS} FROM api_keys WHERE key_prefix = $1 ORDER BY created_at`,
          [idOrPrefix],
        )
      ).rows;
      if (rows.length > 1) {
        throw new ApiError(
          'INVALID_INPUT',
          `The prefix ${idOrPrefix} matches ${rows.length} keys (${rows.map((row) => row.id).join(', ')}); use the id`,
        );
      }
    } else {
      throw new ApiError(
        'INVALID_INPUT',
        `"${idOrPrefix}" is neither a key id (UUID) nor a key prefix (${KEY_PREFIX_LENGTH} characters, fk_…)`,
      );
    }
    if (!rows[0]) {
      // A full key is never echoed back (it may be live elsewhere); its prefix identifies it well enough.
      const named = looksLikeApiKey(idOrPrefix) ? `the key ${keyPrefixOf(idOrPrefix)}…` : idOrPrefix;
      throw new ApiError('NOT_FOUND', `No API key matches ${named}`);
    }
    return rows[0];
  }
}

function toAuthenticated(row: AuthenticatedRow): AuthenticatedApiKey {
  return {
    id: row.id,
    label: row.label,
    keyPrefix: row.key_prefix,
    rateLimitPerMinute: row.rate_limit_per_minute,
    feeSponsorshipEnabled: row.fee_sponsorship_enabled,
    sponsorAddress: row.sponsor_address,
    kybVerified: row.kyb_verified ?? false,
    revenueShareAddress: row.revenue_share_address ?? null,
  };
}

function toSummary(row: ApiKeyRow): ApiKeySummary {
  return {
    ...toAuthenticated(row),
    webhookUrl: row.webhook_url,
    webhookHeaderNames: Object.keys(row.webhook_headers ?? {}),
    webhookDisabledAt: row.webhook_disabled_at,
    webhookDisabledReason: row.webhook_disabled_reason,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

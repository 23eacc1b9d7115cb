import { Inject, Injectable } from '@nestjs/common';
import { normalizeHex } from '../../projections/requests-v3/requests-v3.columns.js';
import { DATABASE, type Database } from '../database/database.js';
import { REQUESTS_V3_VIEW } from '../history/requests-v3.sql.js';
import { PERPS_A_ACTIVATION_FEE_USD } from './domain/steps/perps-a.js';

/**
 * Perps exchange A charges its 1 USD activation fee on an account's first deposit only (spec, Limits: "new
 * deposits"). Ferry knows an account as activated once a deposit to it through Ferry succeeded: the request history
 * (the requests-v3 read model, folded from the event log) holds a `success` to that recipient on exchange A. An
 * account funded elsewhere first is charged once here too: Ferry cannot see the exchange's own books without its API.
 */
@Injectable()
export class PerpsAActivation {
  constructor(@Inject(DATABASE) private readonly db: Database) {}

  /** Whether a deposit through Ferry to `recipient` on exchange `chainId` has already succeeded. */
  async isActivated(chainId: number, recipient: string): Promise<boolean> {
    const { rows } = await this.db.query<{ activated: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM ${REQUESTS_V3_VIEW}
          WHERE destination_chain_id = $1 AND recipient = $2 AND status = 'success'
       ) AS activated`,
      [chainId, normalizeHex(recipient)],
    );
    return rows[0]?.activated === true;
  }
}

/** The activation fee in USD a deposit to exchange A pays: 1 USD for a new account, nothing after. */
export function activationFeeUsd(activated: boolean): string | null {
  return activated ? null : PERPS_A_ACTIVATION_FEE_USD;
}

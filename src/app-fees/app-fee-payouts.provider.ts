import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainRuntime } from '../chains/chain-runtime.service.js';
import { CLOCK, type Clock } from '../common/clock.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { DATABASE, type Database } from '../database/database.js';
import { AggregateRepository } from '../event-store/aggregate-repository.js';
import { EvmClients } from '../solver/evm-clients.js';
import { TransactionJournal } from '../solver/transaction-journal.js';
import { quotePriceSource } from '../quotes/quote-price-source.js';
import { ClaimPayouts } from './claim-payouts.js';

/**
 * The treasury's payouts, built on first use. When the treasury key is the solver's (the development default: the
 * solver holds the fees withheld from fills) payouts share the solver's journal, so one process sends that key's
 * transactions in one nonce order; another key gets a journal of its own.
 */
@Injectable()
export class AppFeePayoutsProvider {
  private payouts: ClaimPayouts | null | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly accounts: AggregateRepository,
    private readonly modules: ModuleRef,
  ) {}

  get(): ClaimPayouts | null {
    if (this.payouts !== undefined) return this.payouts;
    const key = this.config.appFees.treasuryPrivateKey;
    if (!key) return (this.payouts = null);
    const address = privateKeyToAccount(key).address;
    const solver = this.modules.get(ChainRuntime, { strict: false }).solver;
    const journal =
      solver && solver.address === address
        ? solver.journal
        : new TransactionJournal(this.db, new EvmClients(), privateKeyToAccount(key));
    this.payouts = new ClaimPayouts(journal, this.config.chains, this.accounts, this.clock, {
      clients: new EvmClients(),
      prices: quotePriceSource(this.config, this.clock),
    });
    return this.payouts;
  }
}

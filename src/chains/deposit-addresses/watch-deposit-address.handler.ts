import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DATABASE, type Database } from '../../database/database.js';
import { WatchDepositAddressCommand } from './watch-deposit-address.command.js';

/** Writes the address to `deposit_addresses` (lower-cased); an address quoted again keeps its first request. */
@CommandHandler(WatchDepositAddressCommand)
export class WatchDepositAddressHandler implements ICommandHandler<WatchDepositAddressCommand, void> {
  constructor(@Inject(DATABASE) private readonly db: Database) {}

  async execute({ chainId, address, requestId, watchUntil }: WatchDepositAddressCommand): Promise<void> {
    await this.db.query(
      `INSERT INTO deposit_addresses (chain_id, address, request_id, watch_until) VALUES ($1, $2, $3, $4)
       ON CONFLICT (chain_id, address) DO UPDATE SET watch_until = greatest(deposit_addresses.watch_until, $4)
        WHERE deposit_addresses.request_id = $3`,
      [chainId, address.toLowerCase(), requestId.toLowerCase(), watchUntil.toISOString()],
    );
  }
}

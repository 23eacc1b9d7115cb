import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DATABASE, type Database } from '../../database/database.js';
import { WatchDepositAddressCommand } from './watch-deposit-address.command.js';

/** Writes the address to `deposit_addresses` (lower-cased); an address quoted again keeps its first request. */
@CommandHandler(WatchDepositAddressCommand)
export class WatchDepositAddressHandler implements ICommandHandler<WatchDepositAddressCommand, void> {
  constructor(@Inject(DATABASE) private readonly db: Database) {}

  async execute({
    chainId,
    address,
    requestId,
    expiresAt,
    watchUntil,
  }: WatchDepositAddressCommand): Promise<void> {
    await this.db.query(
      `INSERT INTO deposit_addresses (chain_id, address, request_id, expires_at, watch_until)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (chain_id, address) DO UPDATE SET watch_until = greatest(deposit_addresses.watch_until, $5)
        WHERE deposit_addresses.request_id = $3`,
      [
        chainId,
        address.toLowerCase(),
        requestId.toLowerCase(),
        expiresAt.toISOString(),
        watchUntil.toISOString(),
      ],
    );
  }
}

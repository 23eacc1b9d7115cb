import type { ICommand } from '@nestjs/cqrs';

/**
 * Puts a quoted deposit address under watch (`deposit_addresses`). The quote sends it before it records the request,
 * so the address is watched before anyone can see it, let alone pay it.
 */
export class WatchDepositAddressCommand implements ICommand {
  constructor(
    readonly chainId: number,
    readonly address: string,
    readonly requestId: string,
    /** The quote's expiry: until then the address's balance is checked too. */
    readonly expiresAt: Date,
    /** The quote's expiry plus the grace during which late transfers are still seen (and given back). */
    readonly watchUntil: Date,
  ) {}
}

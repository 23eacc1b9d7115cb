import { WatchDepositAddressHandler } from './watch-deposit-address.handler.js';

/** The deposit-address command handlers; adding one never edits the module. */
export const depositAddressCommandHandlers = [WatchDepositAddressHandler];

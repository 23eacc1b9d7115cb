/** Why a command was refused (the HTTP edge maps each to its answer). */
export type RequestErrorCode =
  | 'REQUEST_NOT_FOUND'
  | 'REQUEST_ALREADY_EXISTS'
  | 'ILLEGAL_TRANSITION'
  | 'DEADLINE_NOT_REACHED'
  | 'DEADLINE_PASSED'
  | 'DEPOSIT_MISMATCH'
  | 'DEPOSIT_ALREADY_MADE'
  | 'FILL_MISMATCH';

/** Why a deposit is not this request's to take (it is returned to its depositor instead). */
export type DepositMismatch = 'WRONG_CHAIN' | 'WRONG_DEPOSITORY' | 'WRONG_CURRENCY';

/** A command the request's state does not allow; nothing is appended. */
export class RequestDomainError extends Error {
  constructor(
    readonly code: RequestErrorCode,
    message: string,
    /** For DEPOSIT_MISMATCH: which rule the deposit broke. */
    readonly mismatch?: DepositMismatch,
  ) {
    super(message);
    this.name = 'RequestDomainError';
  }
}

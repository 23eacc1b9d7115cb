import type { ActualSponsorshipPhase } from '../requests/domain/records.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';

/**
 * The `actual` sponsorship a fill records: the quoted split (the user was given those terms) and, when an app-fee
 * balance sponsors the request, its `sponsorPayment {amount, address, chainId}`, which the accrual consumer debits
 * from that balance once. Null when the quote sponsored nothing from a balance.
 */
export function actualSponsorship(quote: RequestQuotedData): ActualSponsorshipPhase | null {
  if (!quote.feeSponsorship || !quote.sponsor) return null;
  return {
    ...quote.feeSponsorship,
    sponsorPayment: {
      amount: quote.sponsor.amount,
      address: quote.sponsor.address,
      chainId: quote.sponsor.chainId,
    },
  };
}

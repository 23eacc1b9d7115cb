import {
  SPONSORSHIP_COMPONENTS,
  type Amount,
  type SponsorshipComponent,
  type SponsorshipComponentName,
  type SponsorshipPhase,
} from '../../../requests/domain/records.js';
import { QuoteError } from '../quote-error.js';
import type { FeeAmounts } from './fees.js';
import { currencyKey } from './price-source.js';
import type { PricedCurrency, SponsorConfig, SponsorshipRequest } from './price-quote-input.js';
import { convertUnits, toAmount } from './valuation.js';

/** The quote response's sponsorship component names: the v3 `platform` is `relay` there. */
export const QUOTE_SPONSORSHIP_COMPONENTS = ['execution', 'swap', 'relay', 'app', 'rent'] as const;
export type QuoteSponsorshipComponentName = (typeof QUOTE_SPONSORSHIP_COMPONENTS)[number];

/** One phase of `feeSponsorship` as the quote response names it. */
export interface QuoteSponsorshipPhase {
  readonly selectedComponents: readonly QuoteSponsorshipComponentName[];
  readonly capHit: boolean;
  readonly components: Readonly<Record<QuoteSponsorshipComponentName, SponsorshipComponent>>;
  readonly sponsoredTotal: Amount;
  readonly userPaysTotal: Amount;
  readonly maxSubsidizationAmount: string;
}

/** One component's split, in the fee currency's smallest unit. */
export interface ComponentShare {
  readonly selected: boolean;
  readonly total: bigint;
  readonly sponsored: bigint;
  readonly userPays: bigint;
}

export interface SponsorshipAllocation {
  readonly components: Readonly<Record<SponsorshipComponentName, ComponentShare>>;
  /** What the sponsor pays, in the fee currency's smallest unit. */
  readonly sponsored: bigint;
  readonly capHit: boolean;
}

/** The quoted sponsorship in both namings, amounts in the sponsorship currency. */
export interface PricedSponsorship {
  readonly currency: PricedCurrency;
  /** The quote response's `feeSponsorship.quoted` (`relay`). */
  readonly quoted: QuoteSponsorshipPhase;
  /** The v3 record's `feeSponsorship.quoted` (`platform`). */
  readonly record: SponsorshipPhase;
}

const QUOTE_NAME: Readonly<Record<SponsorshipComponentName, QuoteSponsorshipComponentName>> = {
  execution: 'execution',
  swap: 'swap',
  platform: 'relay',
  app: 'app',
  rent: 'rent',
};

const V3_NAME: Readonly<Record<string, SponsorshipComponentName>> = {
  execution: 'execution',
  swap: 'swap',
  relay: 'platform',
  platform: 'platform',
  app: 'app',
  rent: 'rent',
};

export interface SelectSponsoredComponentsParameters {
  readonly request: SponsorshipRequest | undefined;
  readonly sponsor: SponsorConfig | null | undefined;
  readonly useDepositAddress: boolean;
}

/**
 * The components the request sponsors (v3 names, canonical order), or null when it asks for no sponsorship.
 * `subsidizeFees: true` selects every component; otherwise `sponsoredFeeComponents` does. Refused
 * (`SPONSORSHIP_NOT_ALLOWED`) when the API key has no sponsorship or the quote uses a deposit address.
 */
export function selectSponsoredComponents({
  request,
  sponsor,
  useDepositAddress,
}: SelectSponsoredComponentsParameters): readonly SponsorshipComponentName[] | null {
  const names = request?.sponsoredFeeComponents ?? [];
  if (request?.subsidizeFees !== true && names.length === 0) return null;
  if (!sponsor) {
    throw new QuoteError(
      'SPONSORSHIP_NOT_ALLOWED',
      'Fee sponsorship needs an API key with sponsorship enabled; quote without subsidizeFees and sponsoredFeeComponents, or use such a key',
      { reason: 'key-without-sponsorship' },
    );
  }
  if (useDepositAddress) {
    throw new QuoteError(
      'SPONSORSHIP_NOT_ALLOWED',
      'Fee sponsorship is not available with deposit addresses; drop useDepositAddress or the sponsorship',
      { reason: 'deposit-address' },
    );
  }
  if (request?.subsidizeFees === true) return SPONSORSHIP_COMPONENTS;
  const selected = new Set(names.map(v3NameOf));
  return SPONSORSHIP_COMPONENTS.filter((name) => selected.has(name));
}

/** The sponsor's cap in the fee currency's smallest unit (rounded down: the sponsor never pays past its cap). */
export function capInFeeUnits(sponsor: SponsorConfig, feeCurrency: PricedCurrency): bigint {
  const currency = sponsor.currency ?? feeCurrency;
  if (sponsor.maxSubsidizationAmount < 0n) {
    throw new RangeError(
      `maxSubsidizationAmount must not be negative, got ${sponsor.maxSubsidizationAmount}`,
    );
  }
  return inCurrency(sponsor.maxSubsidizationAmount, currency, feeCurrency);
}

/**
 * Splits each fee component between sponsor and user. Selected components are paid in the order execution, swap,
 * platform, app, rent until the cap is used up; a negative component (a reward) is never sponsored.
 */
export function allocateSponsorship(
  fees: FeeAmounts,
  selected: readonly SponsorshipComponentName[],
  cap: bigint,
): SponsorshipAllocation {
  const totals: Record<SponsorshipComponentName, bigint> = {
    execution: fees.execution,
    swap: fees.swap,
    platform: fees.platform,
    app: fees.app,
    rent: fees.rent,
  };
  let remaining = cap;
  let capHit = false;
  const entries = SPONSORSHIP_COMPONENTS.map((name) => {
    const total = totals[name];
    const isSelected = selected.includes(name);
    const wanted = isSelected && total > 0n ? total : 0n;
    const sponsored = wanted < remaining ? wanted : remaining;
    if (sponsored < wanted) capHit = true;
    remaining -= sponsored;
    return [name, { selected: isSelected, total, sponsored, userPays: total - sponsored }] as const;
  });
  const components = Object.fromEntries(entries) as Record<SponsorshipComponentName, ComponentShare>;
  const sponsored = entries.reduce((sum, [, share]) => sum + share.sponsored, 0n);
  return { components, sponsored, capHit };
}

export interface SponsorshipPhasesParameters {
  readonly allocation: SponsorshipAllocation;
  readonly selected: readonly SponsorshipComponentName[];
  readonly sponsor: SponsorConfig;
  readonly feeCurrency: PricedCurrency;
}

/**
 * The quoted phase in both namings. Amounts are in the sponsorship currency; when it is not the fee currency each
 * amount is converted at the USD prices, rounded down (totals and sponsored parts alike, so `userPays` is their
 * difference and never negative for a positive fee).
 */
export function sponsorshipPhases({
  allocation,
  selected,
  sponsor,
  feeCurrency,
}: SponsorshipPhasesParameters): PricedSponsorship {
  const currency = sponsor.currency ?? feeCurrency;
  const shares = SPONSORSHIP_COMPONENTS.map(
    (name) => [name, convertShare(allocation.components[name], feeCurrency, currency)] as const,
  );
  const totalOf = (part: 'sponsored' | 'userPays') =>
    shares.reduce((sum, [, share]) => sum + share[part], 0n);
  const common = {
    capHit: allocation.capHit,
    sponsoredTotal: toAmount(totalOf('sponsored'), currency),
    userPaysTotal: toAmount(totalOf('userPays'), currency),
    maxSubsidizationAmount: sponsor.maxSubsidizationAmount.toString(),
  };
  return {
    currency,
    quoted: {
      ...common,
      selectedComponents: selected.map((name) => QUOTE_NAME[name]),
      components: componentsNamed(shares, (name) => QUOTE_NAME[name]),
    },
    record: { ...common, selectedComponents: selected, components: componentsNamed(shares, (name) => name) },
  };
}

function convertShare(share: ComponentShare, from: PricedCurrency, to: PricedCurrency): ComponentShare {
  const total = inCurrency(share.total, from, to);
  const sponsored = inCurrency(share.sponsored, from, to);
  return { selected: share.selected, total, sponsored, userPays: total - sponsored };
}

/** The components as JSON strings, keyed by one naming or the other. */
function componentsNamed<Name extends string>(
  shares: readonly (readonly [SponsorshipComponentName, ComponentShare])[],
  nameOf: (name: SponsorshipComponentName) => Name,
): Record<Name, SponsorshipComponent> {
  const entries = shares.map(([name, share]) => [
    nameOf(name),
    {
      selected: share.selected,
      total: share.total.toString(),
      sponsored: share.sponsored.toString(),
      userPays: share.userPays.toString(),
    },
  ]);
  return Object.fromEntries(entries) as Record<Name, SponsorshipComponent>;
}

function v3NameOf(name: string): SponsorshipComponentName {
  const v3 = Object.hasOwn(V3_NAME, name) ? V3_NAME[name] : undefined;
  if (v3 === undefined) {
    throw new QuoteError('INVALID_INPUT', `Unknown fee component "${name}" in sponsoredFeeComponents`, {
      field: 'sponsoredFeeComponents',
      value: name,
      allowed: [...QUOTE_SPONSORSHIP_COMPONENTS],
    });
  }
  return v3;
}

/** An amount of `from` in `to`'s smallest unit (identity for the same currency; else at USD prices, down). */
function inCurrency(units: bigint, from: PricedCurrency, to: PricedCurrency): bigint {
  return currencyKey(from) === currencyKey(to) ? units : convertUnits(units, from, to, 'floor');
}

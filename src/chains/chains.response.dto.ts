import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ChainCurrency, VmType } from './chain.js';
import { VM_TYPES } from './chain.js';
import type { ChainRegistry } from './chain-registry.js';

/** A currency in `GET /chains` (the shape clients already read; `id` is a stable slug of the symbol). */
export class ChainsCurrencyDto {
  @ApiProperty({ type: String, example: 'usdc' })
  id!: string;

  @ApiProperty({ type: String, example: 'USDC' })
  symbol!: string;

  @ApiProperty({ type: String, example: 'USD Coin' })
  name!: string;

  @ApiProperty({
    type: String,
    description: "In the chain's format (EVM hex, SVM base58, perps exchange ids)",
  })
  address!: string;

  @ApiProperty({ type: Number, example: 6 })
  decimals!: number;

  @ApiProperty({ type: Boolean, description: 'Every listed currency can be bridged' })
  supportsBridging!: boolean;
}

export class ChainsErc20CurrencyDto extends ChainsCurrencyDto {
  @ApiProperty({ type: Boolean, description: 'EIP-3009 signatures (`usePermit`) are accepted for it' })
  supportsPermit!: boolean;
}

export class ChainsSolverCurrencyDto {
  @ApiProperty({ type: String }) id!: string;
  @ApiProperty({ type: String }) symbol!: string;
  @ApiProperty({ type: String }) name!: string;
  @ApiProperty({ type: String }) address!: string;
  @ApiProperty({ type: Number }) decimals!: number;
}

export class ChainsProtocolV2Dto {
  @ApiProperty({ type: String, description: "The chain's name in order data (`orderData.*.chainId`)" })
  chainId!: string;

  @ApiProperty({ type: String, description: "Ferry's depository on the chain, in the chain's format" })
  depository!: string;
}

export class ChainsProtocolDto {
  @ApiProperty({ type: ChainsProtocolV2Dto })
  v2!: ChainsProtocolV2Dto;
}

export class ChainDto {
  @ApiProperty({ type: Number, example: 8453 })
  id!: number;

  @ApiProperty({ type: String, example: 'base' })
  name!: string;

  @ApiProperty({ type: String, example: 'Base' })
  displayName!: string;

  @ApiProperty({
    type: String,
    description:
      'A public RPC URL: `publicRpcUrl` when configured, else the RPC URL without user info, query and fragment; ' +
      'empty when the chain has no RPC in this environment.',
  })
  httpRpcUrl!: string;

  @ApiPropertyOptional({ type: String, description: 'Present when configured; stripped like httpRpcUrl' })
  wsRpcUrl?: string;

  @ApiPropertyOptional({ type: String })
  explorerUrl?: string;

  @ApiProperty({ enum: VM_TYPES, description: 'Neutral names: evm, svm, perps-a, perps-b (docs/chains.md)' })
  vmType!: VmType;

  @ApiProperty({ type: Boolean })
  depositEnabled!: boolean;

  @ApiProperty({ type: ChainsCurrencyDto, description: "The chain's native (base) currency" })
  currency!: ChainsCurrencyDto;

  @ApiProperty({ type: [ChainsErc20CurrencyDto], description: 'The other currencies (tokens) of the chain' })
  erc20Currencies!: ChainsErc20CurrencyDto[];

  @ApiProperty({ type: [ChainsSolverCurrencyDto], description: 'Every currency, the native one first' })
  solverCurrencies!: ChainsSolverCurrencyDto[];

  @ApiProperty({ type: [String], description: 'The address fills come from on this chain' })
  solverAddresses!: string[];

  @ApiProperty({ type: ChainsProtocolDto })
  protocol!: ChainsProtocolDto;
}

/** `GET /chains`. */
export class ChainsResponseDto {
  @ApiProperty({ type: [ChainDto] })
  chains!: ChainDto[];
}

/** Maps the registry to the `GET /chains` body. Only public values: see {@link ChainRegistry.publicRpcUrl}. */
export function toChainsResponse(registry: ChainRegistry): ChainsResponseDto {
  return {
    chains: registry.all().map((chain) => {
      const wsRpcUrl = registry.publicWsRpcUrl(chain.id);
      const tokens = chain.currencies.filter((currency) => currency !== chain.nativeCurrency);
      const ids = currencyIds(chain.currencies);
      return {
        id: chain.id,
        name: chain.name,
        displayName: chain.displayName,
        httpRpcUrl: registry.publicRpcUrl(chain.id) ?? '',
        ...(wsRpcUrl === null ? {} : { wsRpcUrl }),
        ...(chain.explorerUrl === null ? {} : { explorerUrl: chain.explorerUrl }),
        vmType: chain.vmType,
        depositEnabled: chain.depositEnabled,
        currency: toCurrency(chain.nativeCurrency, ids),
        erc20Currencies: tokens.map((currency) => ({
          ...toCurrency(currency, ids),
          supportsPermit: currency.supportsPermit,
        })),
        solverCurrencies: chain.currencies.map((currency) => ({
          id: ids.get(currency) as string,
          symbol: currency.symbol,
          name: currency.name,
          address: currency.address,
          decimals: currency.decimals,
        })),
        solverAddresses: [chain.solver],
        protocol: { v2: { chainId: chain.name, depository: chain.depository } },
      };
    }),
  };
}

function toCurrency(currency: ChainCurrency, ids: ReadonlyMap<ChainCurrency, string>): ChainsCurrencyDto {
  return {
    id: ids.get(currency) as string,
    symbol: currency.symbol,
    name: currency.name,
    address: currency.address,
    decimals: currency.decimals,
    supportsBridging: true,
  };
}

/**
 * Each currency's `id`: the slug of its symbol, or of its name where two currencies of the chain share a symbol
 * (perps exchange A lists a perps and a spot `USDC`).
 */
function currencyIds(currencies: readonly ChainCurrency[]): Map<ChainCurrency, string> {
  const symbols = currencies.map((currency) => currencyId(currency.symbol));
  return new Map(
    currencies.map((currency, index) => [
      currency,
      symbols.indexOf(symbols[index]) === symbols.lastIndexOf(symbols[index])
        ? symbols[index]
        : currencyId(currency.name),
    ]),
  );
}

/** `USDC (Perp)` → `usdc-perp`, `USDC.e` → `usdc-e`: lowercase letters and digits, other runs become one dash. */
export function currencyId(symbol: string): string {
  return symbol
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

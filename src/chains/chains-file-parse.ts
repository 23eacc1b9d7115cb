import { isAddress } from 'viem';
import { ConfigError } from '../config/config.error.js';
import type { Origins } from '../config/resolve-placeholders.js';
import {
  type AddressRole,
  addressKey,
  describeAddressFormat,
  isValidAddress,
  normalizeAddress,
} from './addresses.js';
import { type ChainCurrency, type ChainInfo, VM_TYPES, type VmType } from './chain.js';
import type { ChainsFile } from './chain-registry.js';

export interface ParsedChain {
  readonly info: ChainInfo;
  /** By {@link addressKey}. */
  readonly currencies: ReadonlyMap<string, ChainCurrency>;
  readonly publicRpcUrl: string | null;
}

const CHAIN_FIELDS = [
  'id',
  'name',
  'displayName',
  'vmType',
  'rpcUrl',
  'rpcUrlVariable',
  'publicRpcUrl',
  'wsRpcUrl',
  'explorerUrl',
  'depository',
  'callExecutor',
  'depositAddressFactory',
  'solver',
  'depositEnabled',
  'finality',
  'timeEstimateSeconds',
  'gas',
  'nativeCurrency',
  'currencies',
] as const;
const CURRENCY_FIELDS = [
  'chainId',
  'address',
  'symbol',
  'name',
  'decimals',
  'metadata',
  'supportsPermit',
  'wrappedNative',
  'eip712',
] as const;
const GAS_FIELDS = [
  'defaultPriceWei',
  'depositUnits',
  'erc20DepositUnits',
  'fillUnits',
  'maxFeePerGasWei',
] as const;
const CHAIN_NAME = /^[a-z0-9][a-z0-9-]*$/;
const VARIABLE_NAME = /^[A-Z_][A-Z0-9_]*$/;
const MAX_DECIMALS = 36;
const EVM_NATIVE_ADDRESS = '0x0000000000000000000000000000000000000000';

export function parseChainsFile(file: ChainsFile, context: Context): ParsedChain[] {
  const root = Fields.of(context, '', file);
  root.only(['chains']);
  const entries = root.objects('chains');
  if (entries.length === 0) throw context.fail('chains', 'must list at least one chain');
  const chains: ParsedChain[] = [];
  for (const entry of entries) {
    context.chain = undefined;
    const chain = parseChain(entry, context);
    for (const [field, value] of [
      ['id', chain.info.id],
      ['name', chain.info.name],
    ] as const) {
      const other = chains.findIndex((seen) => seen.info[field] === value);
      if (other >= 0) throw context.fail(entry.at(field), `duplicates chains[${other}].${field} (${value})`);
    }
    chains.push(chain);
  }
  return chains;
}

function parseChain(fields: Fields, context: Context): ParsedChain {
  fields.only(CHAIN_FIELDS);
  const id = fields.integer('id', 1, Number.MAX_SAFE_INTEGER);
  const name = fields.string('name');
  context.chain = `${id} (${name})`;
  if (!CHAIN_NAME.test(name)) {
    throw context.fail(fields.at('name'), 'must be lowercase letters, digits and dashes');
  }
  const vmType = fields.string('vmType') as VmType;
  if (!VM_TYPES.includes(vmType)) {
    throw context.fail(fields.at('vmType'), `must be one of ${VM_TYPES.join(', ')} (got "${vmType}")`);
  }
  const rpcUrl = fields.url('rpcUrl', ['http:', 'https:']);
  const rpcUrlVariable = fields.optionalString('rpcUrlVariable');
  if (rpcUrlVariable !== null && !VARIABLE_NAME.test(rpcUrlVariable)) {
    throw context.fail(fields.at('rpcUrlVariable'), 'must be an environment variable name');
  }
  const publicRpcUrl = fields.has('publicRpcUrl')
    ? fields.url('publicRpcUrl', ['http:', 'https:'])
    : rpcUrl && withoutCredentials(rpcUrl);
  const finality = fields.object('finality');
  finality.only(['blocks', 'seconds', 'tag']);
  const finalityTag = finality.has('tag') ? finality.string('tag', true) || null : null;
  if (finalityTag !== null && finalityTag !== 'finalized') {
    throw context.fail(finality.at('tag'), 'must be "finalized" (or absent: a block count)');
  }
  if (finalityTag !== null && vmType !== 'evm') {
    throw context.fail(finality.at('tag'), 'is read from EVM chains only');
  }
  const gas = fields.object('gas');
  gas.only(GAS_FIELDS);

  const nativeCurrency = parseCurrency(fields.object('nativeCurrency'), id, vmType, true);
  if (vmType === 'evm' && nativeCurrency.address !== EVM_NATIVE_ADDRESS) {
    throw context.fail(fields.at('nativeCurrency.address'), `must be ${EVM_NATIVE_ADDRESS} on an EVM chain`);
  }
  const currencies = [nativeCurrency];
  const byKey = new Map([[addressKey(vmType, nativeCurrency.address), nativeCurrency]]);
  fields.objects('currencies').forEach((entry) => {
    const currency = parseCurrency(entry, id, vmType, false);
    const key = addressKey(vmType, currency.address);
    if (byKey.has(key)) throw context.fail(entry.at('address'), `lists ${currency.address} twice`);
    if (currency.wrappedNative && currencies.some((seen) => seen.wrappedNative)) {
      throw context.fail(
        entry.at('wrappedNative'),
        'is set on a second currency (one wrapped native per chain)',
      );
    }
    byKey.set(key, currency);
    currencies.push(currency);
  });

  const wsRpcUrl = fields.url('wsRpcUrl', ['ws:', 'wss:']);
  const info: ChainInfo = deepFreeze({
    id,
    name,
    displayName: fields.string('displayName'),
    vmType,
    rpcUrl,
    rpcUrlVariable,
    wsRpcUrl,
    explorerUrl: fields.url('explorerUrl', ['http:', 'https:']),
    depository: fields.address('depository', vmType, 'wallet'),
    ...optionalEvmContract('callExecutor', fields, vmType, context),
    ...optionalEvmContract('depositAddressFactory', fields, vmType, context),
    solver: fields.address('solver', vmType, 'wallet'),
    depositEnabled: fields.boolean('depositEnabled'),
    finality: {
      blocks: finality.integer('blocks', 0, 1_000_000),
      seconds: finality.integer('seconds', 0, 86_400),
      ...(finalityTag ? { tag: 'finalized' as const } : {}),
    },
    timeEstimateSeconds: fields.integer('timeEstimateSeconds', 0, 86_400),
    gas: {
      defaultPriceWei: gas.uint('defaultPriceWei'),
      depositUnits: gas.uint('depositUnits'),
      erc20DepositUnits: gas.uint('erc20DepositUnits'),
      fillUnits: gas.uint('fillUnits'),
      ...(gas.has('maxFeePerGasWei') ? { maxFeePerGasWei: gas.uint('maxFeePerGasWei') } : {}),
    },
    nativeCurrency,
    currencies,
  });
  return {
    info,
    currencies: byKey,
    publicRpcUrl,
  };
}

/**
 * An optional contract of Ferry's on an EVM chain (`callExecutor`: none → no destination calls here;
 * `depositAddressFactory`: none → no deposit addresses here): its address, or nothing when absent or empty.
 */
function optionalEvmContract<K extends 'callExecutor' | 'depositAddressFactory'>(
  key: K,
  fields: Fields,
  vmType: VmType,
  context: Context,
): { [P in K]?: string } {
  if (!fields.has(key) || fields.string(key, true) === '') return {};
  if (vmType !== 'evm') throw context.fail(fields.at(key), 'is for EVM chains only');
  return { [key]: fields.address(key, vmType, 'wallet') } as { [P in K]?: string };
}

function parseCurrency(fields: Fields, chainId: number, vmType: VmType, native: boolean): ChainCurrency {
  fields.only(CURRENCY_FIELDS);
  if (fields.has('chainId') && fields.integer('chainId', 0, Number.MAX_SAFE_INTEGER) !== chainId) {
    throw fields.context.fail(fields.at('chainId'), `must be the chain's id ${chainId} (or be left out)`);
  }
  const metadata = fields.object('metadata');
  metadata.only(['logoURI', 'verified', 'isNative']);
  if (metadata.has('isNative') && metadata.boolean('isNative') !== native) {
    throw fields.context.fail(
      metadata.at('isNative'),
      native ? 'must be true on nativeCurrency' : 'must be false outside nativeCurrency',
    );
  }
  const supportsPermit = fields.boolean('supportsPermit', false);
  if (supportsPermit && vmType !== 'evm') {
    throw fields.context.fail(fields.at('supportsPermit'), 'is for EVM tokens (EIP-3009) only');
  }
  const wrappedNative = fields.boolean('wrappedNative', false);
  if (wrappedNative && native) {
    throw fields.context.fail(fields.at('wrappedNative'), 'must be false on nativeCurrency');
  }
  let eip712: ChainCurrency['eip712'];
  if (fields.has('eip712')) {
    if (!supportsPermit)
      throw fields.context.fail(fields.at('eip712'), 'is only for supportsPermit currencies');
    const domain = fields.object('eip712');
    domain.only(['name', 'version']);
    eip712 = { name: domain.string('name'), version: domain.string('version') };
  } else if (supportsPermit) {
    throw fields.context.fail(
      fields.at('eip712'),
      'is required when supportsPermit is true ({name, version})',
    );
  }
  return {
    chainId,
    address: fields.address('address', vmType, 'currency'),
    symbol: fields.string('symbol'),
    name: fields.string('name'),
    decimals: fields.integer('decimals', 0, MAX_DECIMALS),
    metadata: {
      logoURI: metadata.string('logoURI', true),
      verified: metadata.boolean('verified'),
      isNative: native,
    },
    supportsPermit,
    wrappedNative,
    ...(eip712 ? { eip712 } : {}),
  };
}

/** Turns a problem at a path into a ConfigError naming the variable (or file and field) and the chain. */
export class Context {
  /** `8453 (base)`, once the chain being read is known. */
  chain: string | undefined;

  constructor(
    readonly source: string,
    readonly origins: Origins,
  ) {}

  fail(path: string, problem: string): ConfigError {
    const detail = this.chain ? `${problem}, on chain ${this.chain}` : problem;
    const variable = this.origins.get(path);
    return variable
      ? new ConfigError(variable, `${detail} (${this.source}: ${path})`)
      : new ConfigError(`${this.source}: ${path}`, detail);
  }
}

/** Typed reads of one JSON object at a path (paths as `resolvePlaceholders` records them: `chains[0].rpcUrl`). */
class Fields {
  private constructor(
    readonly context: Context,
    readonly path: string,
    private readonly value: Readonly<Record<string, unknown>>,
  ) {}

  static of(context: Context, path: string, value: unknown): Fields {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw context.fail(path || '(root)', 'must be an object');
    }
    return new Fields(context, path, value as Record<string, unknown>);
  }

  at(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }

  has(key: string): boolean {
    return this.value[key] !== undefined;
  }

  /** Rejects unknown fields (a typo would otherwise silently mean "default"); `$comment`-style keys are notes. */
  only(known: readonly string[]): void {
    const unknown = Object.keys(this.value).find((key) => !key.startsWith('$') && !known.includes(key));
    if (unknown !== undefined) {
      throw this.context.fail(this.at(unknown), `is not a known field (known: ${known.join(', ')})`);
    }
  }

  object(key: string): Fields {
    if (!this.has(key)) throw this.context.fail(this.at(key), 'is missing');
    return Fields.of(this.context, this.at(key), this.value[key]);
  }

  objects(key: string): Fields[] {
    const list = this.value[key];
    if (!Array.isArray(list)) throw this.context.fail(this.at(key), 'must be an array');
    return list.map((item, index) => Fields.of(this.context, `${this.at(key)}[${index}]`, item));
  }

  string(key: string, allowEmpty = false): string {
    const value = this.value[key];
    if (value === undefined) throw this.context.fail(this.at(key), 'is missing');
    if (typeof value !== 'string') throw this.context.fail(this.at(key), 'must be a string');
    if (!allowEmpty && value.trim() === '') throw this.context.fail(this.at(key), 'must not be empty');
    return value;
  }

  /** A string, or null when absent or empty (an unset `${VAR:-}`). */
  optionalString(key: string): string | null {
    return this.has(key) && this.string(key, true) !== '' ? this.string(key) : null;
  }

  integer(key: string, min: number, max: number): number {
    const value = this.value[key];
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^-?[0-9]+$/.test(text)) {
      throw this.context.fail(this.at(key), `must be an integer (got ${JSON.stringify(value)})`);
    }
    const number = Number(text);
    if (number < min || number > max) {
      throw this.context.fail(this.at(key), `must be between ${min} and ${max} (got ${number})`);
    }
    return number;
  }

  /** A non-negative integer of any size, as a decimal string (gas prices and units). */
  uint(key: string): string {
    const value = this.value[key];
    const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
    if (typeof text !== 'string' || !/^(?:0|[1-9][0-9]*)$/.test(text)) {
      throw this.context.fail(
        this.at(key),
        `must be a non-negative integer string (got ${JSON.stringify(value)})`,
      );
    }
    return text;
  }

  boolean(key: string, fallback?: boolean): boolean {
    const value = this.value[key];
    if (value === undefined && fallback !== undefined) return fallback;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    throw this.context.fail(this.at(key), `must be true or false (got ${JSON.stringify(value)})`);
  }

  /** An absolute URL with one of the protocols, or null when absent or empty. Never echoed: it may hold a key. */
  url(key: string, protocols: readonly string[]): string | null {
    const text = this.optionalString(key);
    if (text === null) return null;
    let url: URL | undefined;
    try {
      url = new URL(text);
    } catch {
      url = undefined;
    }
    if (!url || !protocols.includes(url.protocol)) {
      const schemes = protocols.map((protocol) => `${protocol}//`).join(' or ');
      throw this.context.fail(this.at(key), `must be a URL (${schemes})`);
    }
    return text;
  }

  address(key: string, vmType: VmType, role: AddressRole): string {
    const text = this.string(key);
    if (!isValidAddress(vmType, text, role)) {
      throw this.context.fail(
        this.at(key),
        `must be ${describeAddressFormat(vmType, role)} (got ${JSON.stringify(text)})`,
      );
    }
    // Inputs need no checksum, but a mixed-case address in a config file must carry a right one: it catches typos.
    const evmFormat = vmType === 'evm' || (vmType === 'perps-a' && role === 'wallet');
    if (evmFormat && !isAddress(text, { strict: true })) {
      throw this.context.fail(this.at(key), `has a wrong EIP-55 checksum (got ${text}; a typo?)`);
    }
    return normalizeAddress(vmType, text, role);
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** A URL without user info, query and fragment (where RPC providers put credentials). */
export function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  // URL writes an empty path as `/`; keep the URL as configured (`http://127.0.0.1:8545`).
  const hasPath = /^[a-z][a-z0-9+.-]*:\/\/[^/]*\//i.test(url.split(/[?#]/)[0]);
  return `${parsed.protocol}//${parsed.host}${hasPath ? parsed.pathname : ''}`;
}

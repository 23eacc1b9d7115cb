/**
 * The chain variables production requires (configs/chains.production.json), valid values of each format, and the
 * RPC of chain 1, which holds the price feeds (configs/app.production.json, docs/prices.md).
 */
export const PRODUCTION_CHAINS_ENV: Readonly<Record<string, string>> = {
  RPC_URL_1: 'https://ethereum-rpc.example.invalid',
  EVM_DEPOSITORY_ADDRESS: '0x1111111111111111111111111111111111111111',
  EVM_SOLVER_ADDRESS: '0x2222222222222222222222222222222222222222',
  PERPS_A_DEPOSITORY_ADDRESS: '0x3333333333333333333333333333333333333333',
  PERPS_A_SOLVER_ADDRESS: '0x4444444444444444444444444444444444444444',
  PERPS_B_DEPOSITORY_ACCOUNT: '281474976710654',
  PERPS_B_SOLVER_ACCOUNT: '281474976710655',
  SVM_DEPOSITORY_ADDRESS: 'Gm3vZKoGGAAbPzZpiGDVbT7zkzK6Zr2sJS4eWJmJqcbb',
  SVM_SOLVER_ADDRESS: 'So11111111111111111111111111111111111111112',
};

/** The hub variables production requires once Ferry mounts or runs an oracle (configs/chains.hub.production.json). */
export const PRODUCTION_HUB_ENV: Readonly<Record<string, string>> = {
  HUB_CHAIN_ID: '8453',
  HUB_ORACLE_CONTRACT: '0x5555555555555555555555555555555555555555',
};

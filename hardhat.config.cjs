// Hardhat 2 (EDR) configuration of Ferry's local chains: `npm run devnet` and the tests start `hardhat node` with it
// (docs/devnet.md). CommonJS because Hardhat 2 cannot load an ES module config and this package is ESM. Hardhat
// compiles nothing here: the contracts are built by `npm run contracts` (solc-js) and deployed with viem.
//
// Environment (each chain is one `hardhat node` process):
//   DEVNET_CHAIN_ID           chain id, default 31337 (the devnets are 31337 and 31338; never 1337)
//   DEVNET_BLOCK_INTERVAL_MS  mine a block every N ms even without transactions, default 1000; 0 turns it off
//   DEVNET_AUTOMINE           "true": mine each transaction at once as well, default "false"
/* global module */
'use strict';

function integer(name, fallback) {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^[0-9]+$/.test(text)) throw new Error(`${name} must be a non-negative integer (got "${text}")`);
  return Number(text);
}

function boolean(name, fallback) {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (text !== 'true' && text !== 'false') throw new Error(`${name} must be true or false (got "${text}")`);
  return text === 'true';
}

const chainId = integer('DEVNET_CHAIN_ID', 31337);
const intervalMs = integer('DEVNET_BLOCK_INTERVAL_MS', 1000);
const automine = boolean('DEVNET_AUTOMINE', false);
if (!automine && intervalMs === 0) {
  throw new Error(
    'DEVNET_AUTOMINE=false needs DEVNET_BLOCK_INTERVAL_MS > 0, or no block would ever be mined',
  );
}

/** @type {import('hardhat/types').HardhatUserConfig} */
module.exports = {
  defaultNetwork: 'hardhat',
  networks: {
    hardhat: {
      chainId,
      // Pinned (as solc's evmVersion in scripts/compile-contracts.mjs) so a Hardhat upgrade changes no behaviour.
      hardfork: 'cancun',
      mining: { auto: automine, interval: intervalMs },
      // Several blocks may share a second (1 s interval, automine): the chain clock then follows the wall clock
      // instead of running ahead by a second per block, which would expire time-bound signatures in long tests.
      allowBlocksWithSameTimestamp: true,
      // The well-known Hardhat test mnemonic: account #0 deploys, #1 is the solver, #2 the demo user, #3 the
      // relayer. Public keys, never for real funds.
      accounts: { mnemonic: 'test test test test test test test test test test test junk', count: 10 },
      // `hardhat node` would print every RPC call otherwise.
      loggingEnabled: false,
    },
  },
  // Keep Hardhat's own cache and artifacts out of the tree (paths are relative to this file); the contract
  // artifacts are contracts/artifacts/*.json.
  paths: {
    sources: './contracts',
    cache: './node_modules/.cache/hardhat/cache',
    artifacts: './node_modules/.cache/hardhat/artifacts',
  },
};

/**
 * Local chains for tests: `startDevnets()` starts 31337 and 31338 (automine by default) with Ferry's contracts and
 * funded accounts; call `stop()` in `afterAll` (a chain left running is killed when the test process exits). The
 * code lives in `scripts/devnet/`, shared with `npm run devnet`, the demo and the benchmarks.
 *
 * @example const [a, b] = await startDevnets(); … await Promise.all([a.stop(), b.stop()]);
 */
export {
  DEVNET_ACCOUNTS,
  type DevnetAccount,
  type DevnetAccounts,
  type DevnetDeployment,
} from '../../scripts/devnet/deploy-devnet.js';
export {
  DEVNET_CHAIN_IDS,
  type Devnet,
  startDevnet,
  startDevnets,
  type StartDevnetOptions,
} from '../../scripts/devnet/devnets.js';

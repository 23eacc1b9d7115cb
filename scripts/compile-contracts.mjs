// `npm run contracts`: compiles contracts/*.sol with solc-js (the `solc` npm package) and writes one artifact per
// deployable contract to contracts/artifacts/<Name>.json. The output depends only on the sources, the settings below
// and the pinned compiler, so the checked-in artifacts can be reviewed and a test can tell when they are stale.
// `node scripts/compile-contracts.mjs --check` (or `npm run contracts -- --check`) only compares, writing nothing.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import solc from 'solc';

/** The only compiler the artifacts may come from; `npm ls solc` shows the installed one. */
export const SOLC_VERSION = '0.8.30+commit.73712a01';

/** The repository root (this file is in `scripts/`). */
export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const CONTRACTS_DIR = join(ROOT, 'contracts');
export const ARTIFACTS_DIR = join(CONTRACTS_DIR, 'artifacts');

/**
 * Fixed compiler settings. The EVM version is pinned (solc's default moves between releases) and matches the
 * hardfork `hardhat.config.cjs` gives the devnets.
 */
export const COMPILER_SETTINGS = {
  evmVersion: 'cancun',
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
};

/** The installed solc-js version without its build suffix (`0.8.30+commit.73712a01`). */
export function installedSolcVersion() {
  return solc.version().replace(/\.Emscripten.*$/, '');
}

/** Throws unless the installed compiler is {@link SOLC_VERSION}: another one gives other bytecode. */
export function assertSolcVersion() {
  const installed = installedSolcVersion();
  if (installed !== SOLC_VERSION) {
    throw new Error(
      `solc ${installed} is installed but the contract artifacts are built with solc ${SOLC_VERSION}: ` +
        `install solc@${SOLC_VERSION.split('+')[0]} (npm ci), or update SOLC_VERSION in scripts/compile-contracts.mjs ` +
        'and run `npm run contracts`',
    );
  }
}

/**
 * The solc standard-JSON input: every `contracts/*.sol`, keyed `contracts/<file>` in name order, line endings
 * normalised (a Windows checkout must not change the bytecode).
 */
export function compilerInput(contractsDir = CONTRACTS_DIR) {
  const files = readdirSync(contractsDir)
    .filter((file) => file.endsWith('.sol'))
    .sort();
  const sources = {};
  for (const file of files) {
    sources[`contracts/${file}`] = {
      content: readFileSync(join(contractsDir, file), 'utf8').replace(/\r\n?/g, '\n'),
    };
  }
  return { language: 'Solidity', sources, settings: COMPILER_SETTINGS };
}

/** JSON with object keys sorted at every level, so equal values always serialise to equal text. */
export function canonicalJson(value, indent) {
  const sortKeys = (item) => {
    if (Array.isArray(item)) return item.map(sortKeys);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(
        Object.keys(item)
          .sort()
          .map((key) => [key, sortKeys(item[key])]),
      );
    }
    return item;
  };
  return JSON.stringify(sortKeys(value), null, indent);
}

/** `sha256:<hex>` of the compiler version and the standard-JSON input (sources and settings). */
export function sourceHashOf(input) {
  const digest = createHash('sha256')
    .update(canonicalJson({ solcVersion: SOLC_VERSION, input }))
    .digest('hex');
  return `sha256:${digest}`;
}

/**
 * Compiles the contracts and returns the artifacts by contract name (abstract contracts and interfaces, which have
 * no bytecode, get none). Throws with solc's messages on any error.
 */
export function compileContracts(contractsDir = CONTRACTS_DIR) {
  assertSolcVersion();
  const input = compilerInput(contractsDir);
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((error) => error.formattedMessage).join('\n')}`);
  }
  const warnings = (output.errors ?? []).filter((error) => error.severity !== 'error');
  const sourceHash = sourceHashOf(input);
  const artifacts = {};
  for (const file of Object.keys(output.contracts ?? {}).sort()) {
    for (const [contractName, contract] of Object.entries(output.contracts[file])) {
      if (!contract.evm.bytecode.object) continue;
      if (artifacts[contractName]) throw new Error(`Two contracts are named ${contractName}`);
      artifacts[contractName] = {
        contractName,
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
        sourceHash,
      };
    }
  }
  return { artifacts, sourceHash, warnings: warnings.map((warning) => warning.formattedMessage) };
}

/** The text of an artifact file: sorted keys, two-space indent, final newline. */
export function artifactText(artifact) {
  return `${canonicalJson(artifact, 2)}\n`;
}

/** Replaces contracts/artifacts/ with the artifacts of the current sources. */
export function writeArtifacts(artifacts, artifactsDir = ARTIFACTS_DIR) {
  rmSync(artifactsDir, { recursive: true, force: true });
  mkdirSync(artifactsDir, { recursive: true });
  for (const name of Object.keys(artifacts).sort()) {
    writeFileSync(join(artifactsDir, `${name}.json`), artifactText(artifacts[name]));
  }
}

/**
 * Compares contracts/artifacts/ with a fresh in-memory compilation and returns what differs (file names), empty when
 * the checked-in artifacts are exactly what the sources give.
 */
export function staleArtifacts(artifacts, artifactsDir = ARTIFACTS_DIR) {
  const expected = new Map(
    Object.entries(artifacts).map(([name, artifact]) => [`${name}.json`, artifactText(artifact)]),
  );
  let present = [];
  try {
    present = readdirSync(artifactsDir).filter((file) => file.endsWith('.json'));
  } catch {
    present = [];
  }
  const problems = [];
  for (const [file, text] of expected) {
    if (!present.includes(file)) problems.push(`${file} is missing`);
    else if (readFileSync(join(artifactsDir, file), 'utf8') !== text) problems.push(`${file} differs`);
  }
  for (const file of present) {
    if (!expected.has(file)) problems.push(`${file} has no contract in contracts/*.sol`);
  }
  return problems.sort();
}

/** `--check`: exits 1 with the differences when contracts/artifacts/ is stale, writing nothing. */
function check() {
  const { artifacts } = compileContracts();
  const problems = staleArtifacts(artifacts);
  if (problems.length > 0) {
    console.error(
      `contracts/artifacts/ is stale (${problems.join('; ')}): run \`npm run contracts\` and commit the artifacts`,
    );
    process.exit(1);
  }
  console.log(`contracts/artifacts/ is up to date (${Object.keys(artifacts).length} contracts)`);
}

function main() {
  const { artifacts, sourceHash, warnings } = compileContracts();
  for (const warning of warnings) console.warn(warning);
  writeArtifacts(artifacts);
  const names = Object.keys(artifacts).sort();
  console.log(`wrote ${names.length} artifacts to contracts/artifacts/ (${names.join(', ')}), ${sourceHash}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    if (process.argv.includes('--check')) check();
    else main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEPLOYED = ['FerryDepository', 'FerryOracleVerifier', 'SmartWallet', 'TestUSDC', 'TestWETH'];

/** `node scripts/compile-contracts.mjs --check` in `root`: recompiles in memory and compares, writing nothing. */
function checkArtifacts(root: string) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  return spawnSync(process.execPath, [join(root, 'scripts', 'compile-contracts.mjs'), '--check'], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
}

describe('contracts/artifacts', () => {
  it('are exactly what contracts/*.sol compile to (when this fails, run `npm run contracts`)', () => {
    const run = checkArtifacts(ROOT);
    if (run.status !== 0) throw new Error(run.stderr || run.stdout);
    expect(run.stdout).toContain('up to date');
  });

  it('hold the contracts the devnet deploys, with bytecode and the hash of the sources they came from', () => {
    const hashes = new Set<string>();
    for (const name of DEPLOYED) {
      const artifact = JSON.parse(readFileSync(join(ROOT, 'contracts', 'artifacts', `${name}.json`), 'utf8'));
      expect(Object.keys(artifact)).toEqual([
        'abi',
        'bytecode',
        'contractName',
        'deployedBytecode',
        'sourceHash',
      ]);
      expect(artifact.contractName).toBe(name);
      expect(artifact.bytecode).toMatch(/^0x[0-9a-f]{200,}$/);
      expect(artifact.deployedBytecode).toMatch(/^0x[0-9a-f]{200,}$/);
      hashes.add(artifact.sourceHash);
    }
    expect([...hashes]).toEqual([expect.stringMatching(/^sha256:[0-9a-f]{64}$/)]);
  });

  describe('the staleness check', () => {
    let copy: string;
    beforeAll(() => {
      // A copy of the repository's contracts and compile script, sharing node_modules (for solc).
      copy = mkdtempSync(join(tmpdir(), 'ferry-contracts-'));
      cpSync(join(ROOT, 'contracts'), join(copy, 'contracts'), { recursive: true });
      cpSync(join(ROOT, 'scripts', 'compile-contracts.mjs'), join(copy, 'scripts', 'compile-contracts.mjs'));
      symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    });
    afterAll(() => rmSync(copy, { recursive: true, force: true }));

    it('fails after a source changes or an artifact lingers, and says to run `npm run contracts`', () => {
      const source = join(copy, 'contracts', 'SmartWallet.sol');
      // Even a comment changes the bytecode: its metadata hash covers the source text.
      writeFileSync(source, `${readFileSync(source, 'utf8')}// edited\n`);
      writeFileSync(join(copy, 'contracts', 'artifacts', 'Removed.json'), '{}\n');

      const run = checkArtifacts(copy);

      expect(run.status).toBe(1);
      expect(run.stderr).toContain('contracts/artifacts/ is stale');
      expect(run.stderr).toContain('SmartWallet.json differs');
      expect(run.stderr).toContain('Removed.json has no contract in contracts/*.sol');
      expect(run.stderr).toContain('run `npm run contracts`');
    });
  });
});

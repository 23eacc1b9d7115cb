// `npm test`: the whole Jest suite (unit, integration, e2e), then one closing line `N passed, N failed, N skipped`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

// The e2e tests start the built processes (dist/), as `npm start` and `npm run cli` do.
const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
if (build.status !== 0) {
  process.stdout.write('0 passed, 1 failed\n');
  process.exit(build.status || 1);
}

const results = '.jest-results.json';
rmSync(results, { force: true });
const run = spawnSync(
  process.execPath,
  ['node_modules/jest/bin/jest.js', '--json', `--outputFile=${results}`, ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim(),
    },
  },
);
if (!existsSync(results)) {
  process.stdout.write('0 passed, 1 failed\n');
  process.exit(run.status || 1);
}
const summary = JSON.parse(readFileSync(results, 'utf8'));
const failedSuites =
  summary.numFailedTestSuites -
  summary.testResults.filter((r) => r.assertionResults.some((a) => a.status === 'failed')).length;
const failed = summary.numFailedTests + Math.max(0, failedSuites);
process.stdout.write(
  `\n${summary.numPassedTests} passed, ${failed} failed, ${summary.numPendingTests + summary.numTodoTests} skipped\n`,
);
process.exit(run.status ?? 1);

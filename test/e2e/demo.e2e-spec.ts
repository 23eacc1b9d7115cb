import { spawn } from 'node:child_process';

/**
 * `npm run demo` as a user runs it on a machine with nothing else started: its own local chains, Ferry in-process on
 * embedded storage (PGlite), a 25 USDC swap through every step until `success`. The suite's other settlement tests
 * run on PostgreSQL; this one keeps the embedded path honest (a PGlite `rowCount` bug once stalled every fill here).
 */
describe('npm run demo', () => {
  it('swaps 25 USDC between the devnets on embedded storage and exits 0 on success', async () => {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, ['dist/scripts/demo.js'], {
        env: {
          ...process.env,
          // Nothing of the developer's: unused ports, so the demo starts its own chains and its own Ferry.
          FERRY_URL: 'http://127.0.0.1:9',
          DEVNET_A_RPC_URL: 'http://127.0.0.1:9',
          DEVNET_B_RPC_URL: 'http://127.0.0.1:9',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', (exitCode) => resolve({ code: exitCode, output }));
    });
    expect({ code, tail: output.split('\n').slice(-15).join('\n') }).toMatchObject({ code: 0 });
    expect(output).toMatch(/success/);
  }, 180_000);
});

import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A free loopback port for a server the test starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface Spawned {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** The exit code, or the signal's name when a signal ended it (Nest re-raises SIGTERM after its shutdown hooks). */
  readonly exited: Promise<number | string | null>;
}

/** Runs a built entry point (`dist/…`) with extra environment (and Node options, e.g. `--import`), collecting its output. */
export function spawnNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Spawned {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built operator CLI (`node dist/src/cli/main.js`, as `npm run cli` does) with the test's environment minus
 * what belongs to Jest or another target (NODE_OPTIONS, EVENTSTORE_URL, DATA_DIR), plus `env`.
 */
export function runBuiltCli(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ENVIRONMENT: 'test', ...env };
  delete childEnv.NODE_OPTIONS;
  for (const name of ['EVENTSTORE_URL', 'DATA_DIR']) if (!(name in env)) delete childEnv[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/src/cli/main.js', ...args], { env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// `node scripts/rehearse-image.mjs [target]`: follows the Dockerfile's steps on a machine without a Docker engine, to
// check what `docker build` and `docker run` would do with this tree (docs/operations.md, "The image"). Each stage's
// WORKDIR is a directory under a scratch root, bind-mounted at that path in a private mount namespace (root and
// `unshare` needed) while a RUN step runs; COPY copies from the build context or an earlier stage; ENV accumulates.
// Then the target's CMD starts with the image's environment and the HEALTHCHECK is run as written. What it does not
// do: the base image (this machine's Node and tools stand in for it) and USER (steps run as root; `chown` to a user
// this machine lacks is skipped and said). Checks, in order: the image's own environment refuses to start (exit ≠ 0,
// naming a variable); with `REHEARSAL_ENV` (`K=V K=V`, e.g. a DATABASE_URL, ENVIRONMENT=development as compose sets it)
// it starts, its HEALTHCHECK passes, `node dist/src/cli/main.js help` answers, and SIGTERM ends it with 0.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const context = resolve(dirname(new URL(import.meta.url).pathname), '..');
const target = process.argv[2];
const scratch = mkdtempSync(join(tmpdir(), 'ferry-image-'));
const say = (text) => process.stdout.write(`rehearsal: ${text}\n`);

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text) {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  return lines
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [word, ...rest] = line.split(/\s+/);
      return { op: word.toUpperCase(), args: rest.join(' ') };
    });
}

const stages = new Map();
let stage;
const hasUser = (name) => spawnSync('id', [name], { stdio: 'ignore' }).status === 0;
const inStage = (command, env) => {
  const root = join(stage.root, stage.workdir);
  mkdirSync(stage.workdir, { recursive: true });
  execFileSync(
    'unshare',
    [
      '-m',
      '--propagation',
      'private',
      'sh',
      '-c',
      `mount --bind "$ROOT" "$WORKDIR" && cd "$WORKDIR" && ${command}`,
    ],
    { stdio: 'inherit', env: { ...process.env, ...env, ROOT: root, WORKDIR: stage.workdir } },
  );
};

for (const { op, args } of instructions(readFileSync(join(context, 'Dockerfile'), 'utf8'))) {
  if (op === 'FROM') {
    const [base, , name] = args.split(/\s+/);
    const parent = stages.get(base);
    const root = join(scratch, name ?? `stage${stages.size}`);
    if (parent) cpSync(parent.root, root, { recursive: true, verbatimSymlinks: true });
    else mkdirSync(root, { recursive: true });
    stage = {
      name,
      root,
      workdir: parent?.workdir ?? '/',
      env: { ...parent?.env },
      cmd: parent?.cmd,
      health: parent?.health,
    };
    stages.set(name, stage);
    say(`stage ${name} from ${base}`);
  } else if (op === 'WORKDIR') {
    stage.workdir = args;
    mkdirSync(join(stage.root, args), { recursive: true });
  } else if (op === 'ENV') {
    for (const pair of args.match(/\S+=("[^"]*"|\S+)/g) ?? []) {
      const at = pair.indexOf('=');
      stage.env[pair.slice(0, at)] = pair.slice(at + 1).replace(/^"|"$/g, '');
    }
  } else if (op === 'COPY') {
    const parts = args.split(/\s+/);
    const from = parts[0].startsWith('--from=')
      ? stages.get(parts.shift().slice('--from='.length))
      : undefined;
    const destination = parts.pop();
    const into = join(
      stage.root,
      destination.startsWith('/') ? destination : join(stage.workdir, destination),
    );
    for (const source of parts) {
      const path = from
        ? join(from.root, source.startsWith('/') ? source : join(from.workdir, source))
        : join(context, source);
      const base = source.replace(/\/$/, '').split('/').pop();
      const to = destination.endsWith('/') || parts.length > 1 ? join(into, base) : into;
      cpSync(path, to, { recursive: true, verbatimSymlinks: true });
    }
  } else if (op === 'RUN') {
    let command = args;
    if (/chown (\S+):/.test(command) && !hasUser(command.match(/chown (\S+):/)[1])) {
      say(`skipped in "${command}": chown to a user this machine lacks`);
      command = command.replace(/&&\s*chown \S+ \S+/, '');
    }
    say(`RUN ${command}`);
    inStage(command, stage.env);
  } else if (op === 'CMD') {
    stage.cmd = JSON.parse(args);
  } else if (op === 'HEALTHCHECK') {
    stage.health = JSON.parse(args.slice(args.indexOf('CMD') + 3).trim());
  } else if (op !== 'USER' && op !== 'EXPOSE') {
    throw new Error(`The rehearsal does not know ${op}`);
  }
}

const image = target ? stages.get(target) : stage;
if (!image) throw new Error(`No stage ${target}`);
const root = join(image.root, image.workdir);
const env = (extra) => ({ PATH: process.env.PATH, HOME: tmpdir(), ...image.env, ...extra });
const extra = Object.fromEntries(
  (process.env.REHEARSAL_ENV ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
);
// The container's view: the stage's WORKDIR at its path (a private mount), then the command.
const contained = (argv) => [
  '-m',
  '--propagation',
  'private',
  'sh',
  '-c',
  `mount --bind "$ROOT" "$WORKDIR" && cd "$WORKDIR" && exec "$@"`,
  'sh',
  ...argv,
];
const run = (argv, runEnv, timeout = 30_000) =>
  spawnSync('unshare', contained(argv), {
    env: { ...runEnv, ROOT: root, WORKDIR: image.workdir },
    encoding: 'utf8',
    timeout,
  });

let failures = 0;
const check = (ok, text) => {
  say(`${ok ? 'ok' : 'FAILED'}: ${text}`);
  if (!ok) failures += 1;
};

const bare = run(image.cmd, env({}));
const refusal = `${bare.stdout}${bare.stderr}`.trim().split('\n').pop();
check(
  bare.status !== 0 && /Invalid configuration: \S+/.test(refusal),
  `the image's own environment refuses to start: ${refusal}`,
);

if (Object.keys(extra).length > 0) {
  const server = spawn('unshare', contained(image.cmd), {
    env: { ...env(extra), ROOT: root, WORKDIR: image.workdir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let healthy = false;
  for (let attempt = 0; attempt < 60 && !healthy; attempt += 1) {
    await new Promise((done) => setTimeout(done, 1000));
    healthy = run(image.health, env(extra), 10_000).status === 0;
  }
  check(healthy, `HEALTHCHECK ${JSON.stringify(image.health)} passes`);
  const help = run(['node', 'dist/src/cli/main.js', 'help'], env(extra));
  check(
    help.status === 0 && help.stdout.includes('db:migrate'),
    'the CLI answers in the image (node dist/src/cli/main.js help)',
  );
  const exited = new Promise((done) => server.once('exit', (code) => done(code)));
  server.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise((done) => setTimeout(() => done('timeout'), 20_000))]);
  check(code === 0, `SIGTERM ends it with exit 0 (got ${code})`);
}

if (existsSync(scratch) && !process.env.REHEARSAL_KEEP) rmSync(scratch, { recursive: true, force: true });
say(failures === 0 ? 'passed' : `${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);

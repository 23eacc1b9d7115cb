import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { APPEND_WRITERS, type AppendFigures, runAppendBench } from './append.bench.js';
import { type CatchUpFigures, runCatchUpBench } from './catch-up.bench.js';
import { type RebuildFigures, runRebuildBench } from './rebuild.bench.js';
import { seedLog, waitUntilReadable } from './seed-log.js';
import {
  benchScale,
  formatInteger,
  formatMarkdownTable,
  formatMs,
  formatTable,
  loadAverage,
  type MachineInfo,
  machineInfo,
  now,
  withScratchDatabase,
  write,
} from './support.js';

/**
 * The foundation figures, measured in one process against scratch databases on the local PostgreSQL server:
 * `npm run bench` (`BENCH_SCALE` scales every workload; `BENCH_RESULTS_FILE=bench/RESULTS.md` also writes the
 * Markdown summary). Targets are reported as PASS/MISS, never asserted: the process exits 0 unless a run fails.
 */

const TARGETS = {
  appendEventsPerSecond: 5_000,
  appendRatio: 0.8,
  catchUpEventsPerSecond: 100_000,
  rebuildEventsPerSecond: 50_000,
} as const;

interface Figure {
  readonly name: string;
  readonly measured: number;
  readonly target: number;
  readonly unit: 'events/s' | 'ratio';
}

const formatValue = (value: number, unit: Figure['unit']): string =>
  unit === 'ratio' ? value.toFixed(3) : `${formatInteger(value)} ${unit}`;

/** Rounded down, so a miss never reads as 1.00x. */
const timesTarget = (measured: number, target: number): string =>
  `${(Math.floor((100 * measured) / target) / 100).toFixed(2)}x`;

function figureRows(figures: readonly Figure[]): string[][] {
  return figures.map((figure) => [
    figure.name,
    formatValue(figure.measured, figure.unit),
    `≥ ${formatValue(figure.target, figure.unit)}`,
    timesTarget(figure.measured, figure.target),
    figure.measured >= figure.target ? 'PASS' : 'MISS',
  ]);
}

async function main(): Promise<void> {
  const started = now();
  const scale = benchScale();
  const sizes = {
    appendEvents: Math.max(APPEND_WRITERS * 10, Math.round(20_000 * scale)),
    appendWarmup: Math.max(APPEND_WRITERS * 10, Math.round(4_000 * scale)),
    appendRounds: 6,
    logEvents: Math.max(10_000, Math.round(100_000 * scale)),
    pageSize: 5_000,
    batchSize: 5_000,
    readRounds: 3,
    rebuildRounds: 3,
  };
  const loadAtStart = loadAverage();
  write(`Ferry foundation benchmarks (BENCH_SCALE=${scale}); load average at start ${loadAtStart}`);
  write();

  let machine: MachineInfo | undefined;
  write(
    `[1/3] Appends: ${APPEND_WRITERS} writers, 1–3 events per append, exact expected revisions, ` +
      `${formatInteger(sizes.appendEvents)} events per round, ${sizes.appendRounds} alternating pairs of rounds`,
  );
  const append: AppendFigures = await withScratchDatabase(APPEND_WRITERS, async (scratch) => {
    machine = await machineInfo(scratch.db);
    return runAppendBench(scratch.db, {
      events: sizes.appendEvents,
      warmupEvents: sizes.appendWarmup,
      rounds: sizes.appendRounds,
    });
  });

  const { catchUp, rebuild, seeded } = await withScratchDatabase(4, async (scratch) => {
    write();
    write(`Seeding a log of ${formatInteger(sizes.logEvents)} events (INSERT … SELECT generate_series)…`);
    const seedStarted = now();
    const log = await seedLog(scratch.db, sizes.logEvents);
    write(
      `  ${formatInteger(log.events)} events in ${formatInteger(log.streams)} streams, ` +
        `${log.tableMiB.toFixed(0)} MiB with indexes, seeded in ${((now() - seedStarted) / 1000).toFixed(1)} s`,
    );
    await waitUntilReadable(scratch.db, log.events);
    write();
    write(`[2/3] Catch-up read: PostgresEventStore.readAll from START, pages of ${sizes.pageSize}`);
    const catchUpFigures: CatchUpFigures = await runCatchUpBench(scratch.db, scratch.url, log.events, {
      pageSize: sizes.pageSize,
      rounds: sizes.readRounds,
    });
    write();
    write(`[3/3] Rebuild: rebuildProjection(stream-summaries), batches of ${sizes.batchSize}`);
    const rebuildFigures: RebuildFigures = await runRebuildBench(scratch.db, log.events, log.streams, {
      batchSize: sizes.batchSize,
      rounds: sizes.rebuildRounds,
    });
    return { catchUp: catchUpFigures, rebuild: rebuildFigures, seeded: log };
  });

  const figures: Figure[] = [
    {
      name: `Append, event store (${APPEND_WRITERS} writers)`,
      measured: append.eventStore.eventsPerSecond,
      target: TARGETS.appendEventsPerSecond,
      unit: 'events/s',
    },
    {
      name: 'Append, event store ÷ raw INSERT',
      measured: append.ratio,
      target: TARGETS.appendRatio,
      unit: 'ratio',
    },
    {
      name: `Catch-up read (readAll, pages of ${catchUp.pageSize})`,
      measured: catchUp.eventsPerSecond,
      target: TARGETS.catchUpEventsPerSecond,
      unit: 'events/s',
    },
    {
      name: `Rebuild stream-summaries (batches of ${rebuild.batchSize})`,
      measured: rebuild.eventsPerSecond,
      target: TARGETS.rebuildEventsPerSecond,
      unit: 'events/s',
    },
  ];
  const headers = ['Figure', 'Measured', 'Target', 'Measured/target', 'Result'];
  const info = machine!;
  const loadAtEnd = loadAverage();

  write();
  write('Results');
  write(formatTable(headers, figureRows(figures)));
  write();
  write('Ratios');
  write(
    `  append event store / raw INSERT: ${append.ratio.toFixed(2)} ` +
      `(median of ${append.eventStore.rounds.length} back-to-back pairs; medians ` +
      `${formatInteger(append.eventStore.eventsPerSecond)} / ${formatInteger(append.raw.eventsPerSecond)} events/s; ` +
      `per-append latency p50/p99 ${formatMs(append.eventStore.p50Ms)} / ${formatMs(append.eventStore.p99Ms)} ` +
      `vs ${formatMs(append.raw.p50Ms)} / ${formatMs(append.raw.p99Ms)})`,
  );
  write(`  append CPU per append (median round): ${appendCpu(append)}`);
  for (const figure of figures) {
    write(`  ${figure.name}: ${timesTarget(figure.measured, figure.target)} its target`);
  }
  write(
    `  catch-up page latency p50/p99: ${formatMs(catchUp.pageP50Ms)} / ${formatMs(catchUp.pageP99Ms)}; ` +
      `CPU per 100,000 events: ${cpuText(catchUp.nodeMsPer100k, catchUp.postgresMsPer100k)}`,
  );
  write(
    `  catch-up with the experimental read path: ${formatInteger(experimentalCatchUp(catchUp))} events/s ` +
      `(${timesTarget(experimentalCatchUp(catchUp), TARGETS.catchUpEventsPerSecond)} target)`,
  );
  write(
    `  rebuild CPU per round: ${cpuText(rebuild.cpu.nodeMs, rebuild.cpu.postgresMs)}; with the experimental ` +
      `read path: ${cpuText(rebuild.experimentCpu.nodeMs, rebuild.experimentCpu.postgresMs)}, ` +
      `${formatInteger(rebuild.experimentEventsPerSecond)} events/s ` +
      `(${timesTarget(rebuild.experimentEventsPerSecond, TARGETS.rebuildEventsPerSecond)} target)`,
  );
  write();
  write('Machine');
  write(`  CPU      ${info.cpu} (${info.cores} cores), ${info.memoryGiB.toFixed(1)} GiB RAM`);
  write(`  Node     ${info.node}`);
  write(`  Postgres ${info.postgres}`);
  write(`           ${info.postgresSettings}`);
  write(`  Date     ${info.date}`);
  write(`  Load     1-minute load average ${loadAtStart} at start, ${loadAtEnd} at the end`);
  write(`  Scale    BENCH_SCALE=${scale}; total ${((now() - started) / 1000).toFixed(1)} s`);
  if (os.loadavg()[0] > os.cpus().length * 0.75) {
    write(
      '  Note     other processes were busy during the run: wall-clock figures are pessimistic; ' +
        'the CPU-per-event figures are the steadier comparison.',
    );
  }

  const resultsFile = process.env.BENCH_RESULTS_FILE;
  if (resultsFile) {
    await writeFile(
      resultsFile,
      markdown(
        info,
        scale,
        `${loadAtStart} → ${loadAtEnd}`,
        figures,
        append,
        catchUp,
        rebuild,
        seeded.streams,
      ),
    );
    write();
    write(`Wrote ${resultsFile}`);
  }
}

const cpuText = (nodeMs: number, postgresMs: number | null): string =>
  `Node ${formatInteger(nodeMs)} ms` +
  (postgresMs === null ? '' : `, PostgreSQL ${formatInteger(postgresMs)} ms`);

function appendCpu(append: AppendFigures): string {
  const side = (name: string, nodeUs: number, postgresUs: number | null) =>
    `${name} Node ${formatInteger(nodeUs)} µs` +
    (postgresUs === null ? '' : ` + PostgreSQL ${formatInteger(postgresUs)} µs`);
  const text =
    `${side('event store', append.eventStore.nodeUsPerAppend, append.eventStore.postgresUsPerAppend)}; ` +
    side('raw INSERT', append.raw.nodeUsPerAppend, append.raw.postgresUsPerAppend);
  if (append.eventStore.postgresUsPerAppend === null || append.raw.postgresUsPerAppend === null) return text;
  const cost =
    (append.raw.nodeUsPerAppend + append.raw.postgresUsPerAppend) /
    (append.eventStore.nodeUsPerAppend + append.eventStore.postgresUsPerAppend);
  return `${text} (CPU-cost ratio raw/event store ${cost.toFixed(2)})`;
}

const experimentalCatchUp = (catchUp: CatchUpFigures): number =>
  catchUp.profile[catchUp.profile.length - 1].eventsPerSecond;

function markdown(
  info: MachineInfo,
  scale: number,
  load: string,
  figures: readonly Figure[],
  append: AppendFigures,
  catchUp: CatchUpFigures,
  rebuild: RebuildFigures,
  streams: number,
): string {
  const setup = formatMarkdownTable(
    ['Run', ''],
    [
      ['Machine', `${info.cpu}, ${info.cores} cores, ${info.memoryGiB.toFixed(1)} GiB RAM`],
      ['Node', info.node],
      ['PostgreSQL', `${info.postgres.split(' on ')[0]}; ${info.postgresSettings}`],
      ['Date', info.date],
      ['Load average (1 min)', `${load} (other work on the machine slows the wall-clock figures)`],
      ['Scale', `\`BENCH_SCALE=${scale}\``],
    ],
  );
  const results = formatMarkdownTable(
    ['Figure', 'Measured', 'Target', 'Measured/target', 'Result'],
    figureRows(figures),
  );
  const share = (row: { label: string; ms: number }) =>
    `${row.label.replace(/^sql: /, '')} ${((100 * row.ms) / rebuild.profileTotalMs).toFixed(0)}%`;
  const diagnostics = [
    `Appends: ${append.writers} writers, 1–3 events per append, exact expected revisions, ` +
      `${formatInteger(append.eventsPerRound)} events per round, ${append.eventStore.rounds.length} back-to-back ` +
      `pairs in alternating order (events/s = median round, ratio = median of pair ratios). Raw INSERT baseline ` +
      `${formatInteger(append.raw.eventsPerSecond)} events/s. Latency p50/p99 ` +
      `${formatMs(append.eventStore.p50Ms)} / ${formatMs(append.eventStore.p99Ms)} vs ` +
      `${formatMs(append.raw.p50Ms)} / ${formatMs(append.raw.p99Ms)}. CPU per append: ${appendCpu(append)}.`,
    `Catch-up: ${formatInteger(rebuild.events)} events in ${formatInteger(streams)} streams, pages of ` +
      `${catchUp.pageSize}, median of ${catchUp.passes.length} passes; CPU per 100,000 events ` +
      `${cpuText(catchUp.nodeMsPer100k, catchUp.postgresMsPer100k)}. By variant (best of two): ` +
      catchUp.profile
        .map(
          (step) =>
            `${step.label} ${formatInteger(step.eventsPerSecond)} events/s ` +
            `(Node ${formatInteger(step.nodeMsPer100k)} ms)`,
        )
        .join('; ') +
      '.',
    `Rebuild: ${formatInteger(rebuild.rows)} rows, median of ${rebuild.secondsPerRound.length} rounds timed end to ` +
      `end; CPU per round ${cpuText(rebuild.cpu.nodeMs, rebuild.cpu.postgresMs)}. Time shares: ` +
      rebuild.profile
        .slice(0, 3)
        .concat(rebuild.profile[rebuild.profile.length - 1])
        .map(share)
        .join('; ') +
      `. With the experimental read path: ${formatInteger(rebuild.experimentEventsPerSecond)} events/s ` +
      `(CPU ${cpuText(rebuild.experimentCpu.nodeMs, rebuild.experimentCpu.postgresMs)}).`,
  ]
    .map((line) => `- ${line}`)
    .join('\n');
  return `# Benchmark results

${setup}

${results}

${diagnostics}

Reproduce: with PostgreSQL on \`127.0.0.1:5432\` (user \`postgres\`, trust auth; \`BENCH_DATABASE_URL\` overrides),
run \`npm run bench\` (\`BENCH_SCALE=2\` for longer runs); \`BENCH_RESULTS_FILE=bench/RESULTS.md npm run bench\`
rewrites this file. Each run creates and drops its own \`ferry_bench_<random>\` databases.
`;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `Benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);

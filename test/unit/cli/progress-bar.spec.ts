import { captureOutput } from '../../../src/cli/output.js';
import { createProgressRenderer, formatProgress, formatRate } from '../../../src/cli/progress-bar.js';

describe('formatProgress', () => {
  it('shows the bar, done/total, the percentage and the rate', () => {
    expect(formatProgress({ done: 450, total: 1000, eventsPerSecond: 1234.4 }, 20)).toBe(
      '[#########-----------] 450/1000 45.0% 1234 events/s',
    );
  });

  it('is empty at the start and full at the end', () => {
    expect(formatProgress({ done: 0, total: 10, eventsPerSecond: 0 }, 10)).toBe(
      '[----------] 0/10 0.0% 0 events/s',
    );
    expect(formatProgress({ done: 10, total: 10, eventsPerSecond: 5 }, 10)).toBe(
      '[##########] 10/10 100.0% 5.0 events/s',
    );
  });

  it('never shows 100% before the end, nor a total below what is done', () => {
    expect(formatProgress({ done: 9999, total: 10000, eventsPerSecond: 1 }, 10)).toContain(' 99.9% ');
    expect(formatProgress({ done: 12, total: 10, eventsPerSecond: 1 }, 10)).toContain(
      '[##########] 12/12 100.0%',
    );
  });

  it('treats an empty log as complete', () => {
    expect(formatProgress({ done: 0, total: 0, eventsPerSecond: 0 }, 4)).toBe('[####] 0/0 100.0% 0 events/s');
  });
});

describe('formatRate', () => {
  it('rounds above 10 events/s, keeps a decimal below, and shows 0 for nothing or infinity', () => {
    expect(formatRate(12.6)).toBe('13');
    expect(formatRate(2.34)).toBe('2.3');
    expect(formatRate(0)).toBe('0');
    expect(formatRate(Number.POSITIVE_INFINITY)).toBe('0');
  });
});

describe('createProgressRenderer', () => {
  const clock = () => {
    let time = 0;
    return { now: () => time, advance: (ms: number) => void (time += ms) };
  };

  it('on a terminal redraws one line in place and ends it when finished', () => {
    const output = captureOutput(true);
    const { now, advance } = clock();
    const renderer = createProgressRenderer(output, { now, width: 4, label: 'rebuilding x' });
    renderer.update({ done: 1, total: 4, eventsPerSecond: 10 });
    advance(50);
    renderer.update({ done: 2, total: 4, eventsPerSecond: 10 }); // within 100 ms: not redrawn
    advance(100);
    renderer.update({ done: 3, total: 4, eventsPerSecond: 10 });
    renderer.update({ done: 4, total: 4, eventsPerSecond: 10 });
    renderer.finish();
    expect(output.stderr).toEqual([
      '\rrebuilding x [#---] 1/4 25.0% 10 events/s\x1b[K',
      '\rrebuilding x [###-] 3/4 75.0% 10 events/s\x1b[K',
      '\rrebuilding x [####] 4/4 100.0% 10 events/s\x1b[K',
      '\n',
    ]);
    expect(output.stdout).toEqual([]);
  });

  it('in a log prints a line at most every 2 s and a final one', () => {
    const output = captureOutput(false);
    const { now, advance } = clock();
    const renderer = createProgressRenderer(output, { now, width: 4 });
    for (let done = 1; done <= 10; done += 1) {
      advance(500);
      renderer.update({ done, total: 10, eventsPerSecond: 2 });
    }
    renderer.finish();
    renderer.finish();
    expect(output.stderr).toEqual([
      '[#---] 4/10 40.0% 2.0 events/s',
      '[###-] 8/10 80.0% 2.0 events/s',
      '[####] 10/10 100.0% 2.0 events/s',
    ]);
  });

  it('does not repeat the final line when it was just printed, and prints nothing without progress', () => {
    const output = captureOutput(false);
    const { now, advance } = clock();
    const renderer = createProgressRenderer(output, { now, width: 4 });
    advance(2000);
    renderer.update({ done: 5, total: 5, eventsPerSecond: 1 });
    renderer.finish();
    expect(output.stderr).toEqual(['[####] 5/5 100.0% 1.0 events/s']);

    const idle = captureOutput(true);
    createProgressRenderer(idle).finish();
    expect(idle.stderr).toEqual([]);
  });
});

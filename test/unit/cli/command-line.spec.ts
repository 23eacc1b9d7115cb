import {
  asksForHelp,
  type OptionSpecs,
  parseCommandLine,
  positionalProblem,
} from '../../../src/cli/command-line.js';
import { commands, parseCommandArgs } from '../../../src/cli/commands/index.js';
import { commandHelpLines, usageLines } from '../../../src/cli/help.js';

const SPEC: OptionSpecs = {
  label: { type: 'string', description: 'a label' },
  address: { type: 'string', needs: 'an EVM address', description: 'an address' },
  header: { type: 'string', multiple: true, description: 'a header' },
  quiet: { type: 'boolean', description: 'say less' },
};

describe(parseCommandLine.name, () => {
  it('splits options (--name value, --name=value, repeatable) from positionals, -- ending the options', () => {
    expect(
      parseCommandLine(SPEC, [
        'k',
        '--label',
        'a b',
        '--header=A: 1',
        '--quiet',
        '--header',
        'B: 2',
        '--',
        '--x',
      ]),
    ).toEqual({
      values: { label: 'a b', header: ['A: 1', 'B: 2'], quiet: true },
      positionals: ['k', '--x'],
    });
    expect(parseCommandLine(SPEC, ['--label='])).toEqual({ values: { label: '' }, positionals: [] });
    expect(parseCommandLine(SPEC, ['--label', '-1'])).toEqual({ values: { label: '-1' }, positionals: [] });
  });

  it.each([
    [['--colour', 'red'], 'Unknown option --colour'],
    [['-x'], 'Unknown option -x'],
    [['--label'], '--label needs a value'],
    [['--label', '--quiet'], '--label needs a value'],
    [['--address'], '--address needs an EVM address'],
    [['--quiet=yes'], '--quiet takes no value'],
    [['--label', 'a', '--label=b'], '--label is given twice'],
    [['--quiet', '--quiet'], '--quiet is given twice'],
  ])('says what is wrong with %j', (args, problem) => {
    expect(parseCommandLine(SPEC, args)).toBe(problem);
  });

  it('counts positionals: exact, optional, variadic', () => {
    const one = [{ name: '<id>', description: '' }];
    expect(positionalProblem(one, ['a'])).toBeUndefined();
    expect(positionalProblem(one, [])).toBe('');
    expect(positionalProblem(one, ['a', 'b'])).toBe('');
    expect(positionalProblem([{ name: '<n>', description: '', variadic: true }], ['a', 'b'])).toBeUndefined();
    expect(positionalProblem([{ name: '<id>', description: '', optional: true }], [])).toBeUndefined();
  });

  it('sees --help or -h anywhere before --', () => {
    expect(asksForHelp(['--label', 'x', '--help'])).toBe(true);
    expect(asksForHelp(['-h'])).toBe(true);
    expect(asksForHelp(['--', '--help'])).toBe(false);
    expect(asksForHelp(['--label', 'x'])).toBe(false);
  });
});

describe('the commands on the one parser', () => {
  it('refuses an unknown option on every command, naming it, before anything is opened', () => {
    for (const command of commands) {
      expect(parseCommandArgs(command, ['--frobnicate'])).toMatch(/^Unknown option --frobnicate/);
    }
  });

  it('takes --json on the listing commands', () => {
    for (const name of [
      'api-keys:list',
      'webhooks:deliveries',
      'solver:jobs',
      'projections:status',
      'db:status',
    ]) {
      const command = commands.find((candidate) => candidate.name === name)!;
      expect(parseCommandArgs(command, ['--json'])).toMatchObject({ values: { json: true } });
    }
  });

  it('lists the options with their descriptions in each command’s help, and the exit codes', () => {
    for (const command of commands) {
      const text = commandHelpLines(command).join('\n');
      expect(text).toContain(`Usage: npm run cli -- ${command.usage}`);
      expect(text).toContain('-h, --help');
      for (const [name, spec] of Object.entries(command.options ?? {})) {
        expect(text).toMatch(
          new RegExp(`--${name}\\b.*  ${spec.description.slice(0, 20).replace(/[()|.*+?[\]]/g, '\\$&')}`),
        );
      }
      expect(text).toContain('Exit codes:');
    }
    const audit = commandHelpLines(commands.find((command) => command.name === 'projections:audit')!);
    expect(audit.join('\n')).toMatch(/ {2}2 {2}the live rows differ/);
    expect(usageLines().join('\n')).toMatch(
      /Exit codes:\n {2}0 {2}done\n {2}1 {2}.*\n {2}2 {2}projections:audit/,
    );
  });

  it('says which commands read, and that those that change data exit 3 on a database behind (none migrates)', () => {
    const reads = commands.filter((command) => command.database === 'read').map((command) => command.name);
    expect(reads).toEqual(
      expect.arrayContaining([
        'events:replay',
        'requests:replay',
        'requests:verify',
        'projections:status',
        'projections:audit',
        'api-keys:list',
        'webhooks:deliveries',
        'webhooks:delivery',
        'solver:jobs',
      ]),
    );
    expect(commands.find((command) => command.name === 'db:status')!.database).toBe('admin');
    const create = commandHelpLines(commands.find((command) => command.name === 'api-keys:create')!).join(
      '\n',
    );
    expect(create).toMatch(
      / {2}3 {2}the database lacks migrations of this version: nothing was changed \(run db:migrate\)/,
    );
    expect(create).toMatch(/never migrates the database, and refuses to run while migrations are pending/);
    const list = commandHelpLines(commands.find((command) => command.name === 'api-keys:list')!).join('\n');
    expect(list).not.toMatch(/ {2}3 {2}/);
    expect(usageLines().join('\n')).toMatch(
      / {2}3 {2}a command that changes data refused to run: the database lacks migrations/,
    );
  });
});

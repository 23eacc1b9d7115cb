import { commands, resolveCommand } from '../../../src/cli/commands/index.js';

describe('resolveCommand', () => {
  it('takes group:verb, and the spaced form group verb, for every command', () => {
    for (const command of commands) {
      expect(resolveCommand([command.name, 'x'])).toEqual({ command, args: ['x'] });
      const [group, verb] = command.name.split(':');
      expect(resolveCommand([group, verb, '--label', 'y'])).toEqual({ command, args: ['--label', 'y'] });
    }
  });

  it('names nothing for an unknown command, a lone group, or a colon form with a stray verb', () => {
    expect(resolveCommand(['frobnicate'])).toBeUndefined();
    expect(resolveCommand(['api-keys'])).toBeUndefined();
    expect(resolveCommand(['api-keys', 'frobnicate'])).toBeUndefined();
    expect(resolveCommand(['api-keys:nope', 'create'])).toBeUndefined();
    expect(resolveCommand([])).toBeUndefined();
  });
});

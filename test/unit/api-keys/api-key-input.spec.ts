import { validateApiKeyInput } from '../../../src/api-keys/api-key-input.js';
import { parseCreateApiKeyArgs } from '../../../src/cli/commands/api-keys-create.command.js';
import { ApiError } from '../../../src/common/http/api-error.js';

function rejection(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).errorCode).toBe('INVALID_INPUT');
    return error as ApiError;
  }
  throw new Error('did not throw');
}

describe(validateApiKeyInput.name, () => {
  it('normalises: trims the label and header values, defaults the rest, normalises the URL', () => {
    expect(validateApiKeyInput({ label: '  Acme  ' })).toEqual({
      label: 'Acme',
      rateLimitPerMinute: null,
      feeSponsorshipEnabled: false,
      sponsorAddress: null,
      webhookUrl: null,
      webhookHeaders: {},
    });
    expect(
      validateApiKeyInput({
        label: 'Acme',
        rateLimitPerMinute: 120,
        feeSponsorshipEnabled: true,
        webhookUrl: 'HTTPS://Hooks.Example/ferry',
        webhookHeaders: { Authorization: ' Bearer t ', 'X-Team_1': 'a' },
      }),
    ).toEqual({
      label: 'Acme',
      rateLimitPerMinute: 120,
      feeSponsorshipEnabled: true,
      sponsorAddress: null,
      webhookUrl: 'https://hooks.example/ferry',
      webhookHeaders: { Authorization: 'Bearer t', 'X-Team_1': 'a' },
    });
  });

  it('takes a sponsor address only with sponsorship, as an EVM address', () => {
    expect(
      validateApiKeyInput({ label: 'a', feeSponsorshipEnabled: true, sponsorAddress: '0x' + 'AB'.repeat(20) })
        .sponsorAddress,
    ).toBe('0x' + 'ab'.repeat(20));
    expect(() => validateApiKeyInput({ label: 'a', sponsorAddress: '0x' + 'ab'.repeat(20) })).toThrow(
      'sponsorAddress needs fee sponsorship enabled on the key',
    );
    expect(() =>
      validateApiKeyInput({ label: 'a', feeSponsorshipEnabled: true, sponsorAddress: '0x12' }),
    ).toThrow('sponsorAddress must be an EVM address');
  });

  it.each([
    [{ label: '' }, 'label must be 1 to 100 characters (got 0)'],
    [{ label: '   ' }, 'label must be 1 to 100 characters'],
    [{ label: 'x'.repeat(101) }, 'label must be 1 to 100 characters (got 101)'],
    [{ label: 'two\nlines' }, 'label must not contain control characters'],
    [{ label: 'a', rateLimitPerMinute: 0 }, 'rateLimitPerMinute must be an integer from 1'],
    [{ label: 'a', rateLimitPerMinute: 1.5 }, 'rateLimitPerMinute must be an integer from 1'],
    [{ label: 'a', webhookUrl: 'not a url' }, 'webhookUrl must be an http(s) URL'],
    [{ label: 'a', webhookUrl: 'ftp://files.example/x' }, 'webhookUrl must use http or https (got ftp:)'],
    [{ label: 'a', webhookUrl: 'https://u:p@hooks.example' }, 'webhookUrl must not carry credentials'],
    [{ label: 'a', webhookHeaders: { 'Bad Name': 'x' } }, 'invalid header name "Bad Name" (RFC 7230 token)'],
    [{ label: 'a', webhookHeaders: { 'X-A:': 'x' } }, 'invalid header name'],
    [
      { label: 'a', webhookHeaders: { 'X-A': 'x\r\nInjected: 1' } },
      'X-A must be at most 4096 characters without CR, LF',
    ],
    [{ label: 'a', webhookHeaders: { Host: 'evil.example' } }, 'may not set Host'],
    [{ label: 'a', webhookHeaders: { 'x-a': '1', 'X-A': '2' } }, 'has X-A twice'],
  ])('refuses %j with INVALID_INPUT', (input, message) => {
    expect(rejection(() => validateApiKeyInput(input)).message).toContain(message);
  });

  it('accepts a label of exactly 100 characters (counted as characters, not UTF-16 units)', () => {
    expect(validateApiKeyInput({ label: '€'.repeat(100) }).label).toHaveLength(100);
    expect(validateApiKeyInput({ label: '🚀'.repeat(100) }).label).toBe('🚀'.repeat(100));
  });
});

describe(parseCreateApiKeyArgs.name, () => {
  it('reads every option, in both --name value and --name=value forms, headers repeatable', () => {
    expect(
      parseCreateApiKeyArgs([
        '--label',
        'Acme wallet',
        '--rate-limit=30',
        '--sponsorship',
        '--webhook-url',
        'https://hooks.example/ferry',
        '--webhook-header',
        'Authorization: Bearer a:b',
        '--webhook-header=X-Team: core',
      ]),
    ).toEqual({
      label: 'Acme wallet',
      rateLimitPerMinute: 30,
      feeSponsorshipEnabled: true,
      webhookUrl: 'https://hooks.example/ferry',
      webhookHeaders: { Authorization: 'Bearer a:b', 'X-Team': 'core' },
    });
    expect(parseCreateApiKeyArgs(['--label=x'])).toEqual({
      label: 'x',
      rateLimitPerMinute: undefined,
      feeSponsorshipEnabled: false,
      webhookUrl: undefined,
      webhookHeaders: {},
    });
  });

  it.each([
    [[], '--label is required'],
    [['--label'], '--label needs a value'],
    [['--label', 'a', '--rate-limit', 'lots'], '--rate-limit needs a positive whole number'],
    [['--label', 'a', '--rate-limit', '0'], '--rate-limit needs a positive whole number'],
    [['--label', 'a', '--webhook-header', 'NoColon'], '--webhook-header needs "Name: value"'],
    [
      ['--label', 'a', '--webhook-header', 'A: 1', '--webhook-header', 'a: 2'],
      '--webhook-header a is given twice',
    ],
    [['--label', 'a', '--sponsorship=yes'], '--sponsorship takes no value'],
    [['--label', 'a', '--colour', 'red'], 'Unknown option --colour'],
    [['--label', 'a', 'stray'], 'Unexpected argument "stray"'],
  ])('says what is wrong with %j', (args, problem) => {
    expect(parseCreateApiKeyArgs(args)).toEqual(expect.stringContaining(problem));
  });
});

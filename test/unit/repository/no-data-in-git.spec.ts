import { execFileSync } from 'node:child_process';

/** Database files never belong in git: a PGlite or PostgreSQL data directory committed by accident bloats every clone. */
describe('the repository', () => {
  const tracked = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter(Boolean);

  it('holds no PGlite or PostgreSQL data files', () => {
    const dataFiles = tracked.filter(
      (path) =>
        /(^|\/)(PG_VERSION|FERRY_PGLITE\.(json|lock)|postmaster\.(pid|opts)|pg_control|api-key-encryption\.key)$/.test(
          path,
        ) ||
        /(^|\/)(pgdata|pg_wal|pg_xact|global|base)\/.*\d+(_fsm|_vm)?$/.test(path) ||
        /(^|\/)memory:(\/|$)/.test(path) ||
        /^data\//.test(path),
    );
    expect(dataFiles).toEqual([]);
  });

  it('ignores the data directories Ferry writes', () => {
    const ignored = execFileSync('git', ['check-ignore', '--no-index', 'data/x', 'memory:/x', 'dist/x'], {
      encoding: 'utf8',
    });
    expect(ignored.split('\n').filter(Boolean)).toEqual(['data/x', 'memory:/x', 'dist/x']);
  });
});

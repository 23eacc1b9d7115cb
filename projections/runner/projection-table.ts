import type { SqlExecutor } from '../../src/database/database.js';
import type { ColumnType, Projection } from '../projection.js';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Table and index names are interpolated into DDL, so only plain identifiers are accepted. */
export function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`"${name}" is not a plain SQL identifier`);
  return name;
}

/** The physical table of one generation of a projection. */
export function generationTable(projection: Projection, generation: number): string {
  return `${identifier(projection.table)}_g${generation}`;
}

const SQL_TYPE: Record<ColumnType, string> = {
  text: 'text',
  bigint: 'bigint',
  integer: 'integer',
  numeric: 'numeric',
  boolean: 'boolean',
  timestamptz: 'timestamptz',
  jsonb: 'jsonb',
  'text[]': 'text[]',
};

const qualify = (table: string, schema?: string): string =>
  schema ? `${identifier(schema)}.${identifier(table)}` : identifier(table);

/**
 * Creates a generation's table with its primary key only. Secondary indexes come later
 * (`createProjectionIndexes`): a generation being rebuilt is filled first and indexed once, which is several times
 * cheaper than maintaining every index through millions of upserts (docs/decisions/0010). Row states are JSON of
 * a few KB that PostgreSQL compresses out of line; lz4 where the server has it, which costs a fraction of pglz.
 */
export async function createProjectionTable(
  sql: SqlExecutor,
  projection: Projection,
  table: string,
  schema?: string,
): Promise<void> {
  const compression = (await supportsLz4(sql)) ? ' COMPRESSION lz4' : '';
  const columns = projection.columns.map(
    (column) => `${identifier(column.name)} ${column.type}${column.type === 'jsonb' ? compression : ''}`,
  );
  await sql.query(
    `CREATE TABLE ${qualify(table, schema)} (id text PRIMARY KEY, state jsonb${compression} NOT NULL${columns
      .map((c) => `, ${c}`)
      .join('')})`,
  );
  // No planner statistics of the states: nothing filters on them, and ANALYZE would detoast a sample of them
  // (about a second of a rebuild's indexing phase for request records).
  await sql.query(`ALTER TABLE ${qualify(table, schema)} ALTER COLUMN state SET STATISTICS 0`);
}

/** The names a projection's secondary indexes get on one generation's table. */
export function indexNames(projection: Projection, table: string): string[] {
  return (projection.indexes ?? []).map((index) => identifier(`${table}_${index.name}`));
}

export interface IndexBuild {
  /** Indexes this call created. */
  readonly created: number;
  /** Indexes another session is still building (`CONCURRENTLY`): the table is not ready until they are valid. */
  readonly pending: number;
}

/**
 * Creates the projection's secondary indexes on a table, skipping those that exist. Each is its own statement (and,
 * outside a transaction, its own transaction) so that none holds the others' locks.
 *
 * `concurrently` (PostgreSQL; PGlite has one connection and no readers to spare): `CREATE INDEX CONCURRENTLY`, whose
 * long build runs in a transaction without a transaction id. A plain `CREATE INDEX` holds one for the whole build,
 * and every catch-up reader of the cluster waits below it (docs/decisions/0002, 0020). An index a concurrent build
 * left invalid (interrupted) is dropped and built again; one still being built by another session counts as pending.
 */
export async function createProjectionIndexes(
  sql: SqlExecutor,
  projection: Projection,
  table: string,
  schema?: string,
  options: { readonly concurrently?: boolean } = {},
): Promise<IndexBuild> {
  const concurrently = options.concurrently === true;
  const { rows } = await sql.query<{ indexname: string; valid: boolean; building: boolean }>(
    `SELECT c.relname AS indexname, i.indisvalid AS valid,
            ${
              concurrently
                ? 'EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.index_relid = i.indexrelid)'
                : 'false'
            } AS building
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = coalesce($1, current_schema()) AND t.relname = $2`,
    [schema ?? null, table],
  );
  const existing = new Map(rows.map((row) => [row.indexname, row]));
  let created = 0;
  let pending = 0;
  for (const index of projection.indexes ?? []) {
    const name = identifier(`${table}_${index.name}`);
    const found = existing.get(name);
    if (found?.valid) continue;
    if (found && concurrently) {
      if (found.building) {
        pending += 1;
        continue;
      }
      await sql.query(`DROP INDEX CONCURRENTLY IF EXISTS ${qualify(name, schema)}`);
    } else if (found) {
      continue;
    }
    await sql.query(
      `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${concurrently ? 'CONCURRENTLY ' : ''}IF NOT EXISTS ${name}
         ON ${qualify(table, schema)}
         USING ${index.using ?? 'btree'} (${index.columns.join(', ')})${index.where ? ` WHERE ${index.where}` : ''}`,
    );
    created += 1;
  }
  return { created, pending };
}

/**
 * Whether the server can compress with lz4: PostgreSQL built with it (Debian's is) lists it among
 * `default_toast_compression`'s values; PGlite lists it too but refuses it, so it is recognised by its version.
 * Asked when a table is created, which is rare.
 */
async function supportsLz4(sql: SqlExecutor): Promise<boolean> {
  const { rows } = await sql.query<{ lz4: boolean; version: string }>(
    `SELECT coalesce('lz4' = ANY(enumvals), false) AS lz4, version() AS version
       FROM pg_settings WHERE name = 'default_toast_compression'`,
  );
  return rows[0]?.lz4 === true && !/emscripten|pglite/i.test(rows[0].version);
}

/**
 * Writes row states: one set-based upsert for the changed rows and one delete for the removed ones
 * (`prepareRows`, then `executeRows`).
 */
export async function writeRows(
  sql: SqlExecutor,
  projection: Projection,
  qualifiedTable: string,
  upserts: ReadonlyMap<string, unknown>,
  deletes: ReadonlySet<string>,
): Promise<void> {
  await executeRows(sql, prepareRows(projection, qualifiedTable, upserts, deletes));
}

/** One table's row changes of a batch, serialised and ready to send (`executeRows`). */
export interface PreparedRows {
  readonly table: string;
  readonly deletes: readonly string[];
  readonly upsert: { readonly text: string; readonly document: string } | null;
}

/**
 * Serialises row states for `executeRows`; pure. The rows travel as ONE JSON document read by
 * `jsonb_to_recordset`: each state is serialised once, inside the document, instead of once as JSON and again as
 * an escaped element of a PostgreSQL array literal per column (measured: about twice the rows per second for
 * request records, bench/RESULTS.md). The document is parsed once, as `jsonb`, and each state taken from it as it
 * is (`json_to_recordset` lexes the document, then parses every state again into `jsonb`: a third more server CPU
 * per request row). States are stored in the projection's `codec` form, written as text by the codec's `serialize`
 * when it has one; the document is assembled from those texts.
 */
export function prepareRows(
  projection: Projection,
  qualifiedTable: string,
  upserts: ReadonlyMap<string, unknown>,
  deletes: ReadonlySet<string>,
): PreparedRows {
  const prepared = { table: qualifiedTable, deletes: [...deletes] };
  if (upserts.size === 0) return { ...prepared, upsert: null };
  const columns = projection.columns.map((column) => identifier(column.name));
  const names = ['id', 'state', ...columns];
  const definitions = [
    'id text',
    'state jsonb',
    ...projection.columns.map((column) => `${identifier(column.name)} ${SQL_TYPE[column.type]}`),
  ];
  const serialize = stateSerializer(projection);
  const rows: string[] = [];
  for (const [id, state] of upserts) {
    const row: Record<string, unknown> = { id };
    for (const column of projection.columns) row[column.name] = toJsonValue(column.type, column.value(state));
    rows.push(`{"state":${serialize(state)},${JSON.stringify(row).slice(1)}`);
  }
  const updates = names.slice(1).map((name) => `${name} = excluded.${name}`);
  return {
    ...prepared,
    upsert: {
      text: `INSERT INTO ${qualifiedTable} (${names.join(', ')})
     SELECT ${names.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS u(${definitions.join(', ')})
     ON CONFLICT (id) DO UPDATE SET ${updates.join(', ')}`,
      document: `[${rows.join(',')}]`,
    },
  };
}

/** The stored text of a state: the codec's `serialize`, else `JSON.stringify` of its encoding. */
function stateSerializer(projection: Projection): (state: unknown) => string {
  const { codec } = projection;
  if (codec?.serialize) return (state) => codec.serialize!(state);
  return (state) => JSON.stringify(codec ? codec.encode(state) : state);
}

/** A projection's table among those written from one shared document (`prepareSharedRows`). */
export interface SharedTarget {
  readonly projection: Projection;
  readonly table: string;
}

/**
 * The rows of projections that share a fold (same ids, same states, each its own columns), for one statement that
 * writes them all: each state is serialised once and parsed once, into a `MATERIALIZED` CTE (`u`) that every table's
 * upsert reads. The columns travel under short keys (`c0`, `c1`, … across all the tables' columns: a request row
 * has about forty, whose names would be a tenth of the document), null ones not at all, and a table's column with
 * the name and type of an earlier table's and the same value in every row of the batch (v2's `status`, `created_at`,
 * … are v3's) only once. Every CTE writes only while `guard` (SQL) holds. `parameter` adds a value to the
 * statement's parameters and answers its placeholder. Pure, like `prepareRows`; returns the CTEs.
 */
export function prepareSharedRows(
  targets: readonly SharedTarget[],
  upserts: ReadonlyMap<string, unknown>,
  deletes: ReadonlySet<string>,
  guard: string,
  parameter: (value: unknown) => string,
): string[] {
  const columns = targets.flatMap(({ projection }, target) =>
    projection.columns.map((column) => ({ column, target })),
  );
  const values = [...upserts.values()].map((state) =>
    columns.map(({ column }) => toJsonValue(column.type, column.value(state))),
  );
  // Which column's key each column is read from: its own, or an equal earlier one's.
  const source = columns.map(({ column, target }, index) => {
    const earlier = columns.findIndex(
      (other, at) =>
        at < index &&
        other.target < target &&
        other.column.name === column.name &&
        other.column.type === column.type,
    );
    return earlier >= 0 && values.every((row) => sameValue(row[earlier], row[index])) ? earlier : index;
  });
  const keyOf = (index: number) => `c${source[index]}`;
  const ctes: string[] = [];
  if (upserts.size > 0) {
    const serialize = stateSerializer(targets[0].projection);
    const rows: string[] = [];
    let at = 0;
    for (const [id, state] of upserts) {
      const row: Record<string, unknown> = { id };
      values[at].forEach((value, index) => {
        if (source[index] === index) row[`c${index}`] = value;
      });
      rows.push(`{"state":${serialize(state)},${JSON.stringify(row).slice(1)}`);
      at += 1;
    }
    const definitions = [
      'id text',
      'state jsonb',
      ...columns.flatMap(({ column }, index) =>
        source[index] === index ? [`c${index} ${SQL_TYPE[column.type]}`] : [],
      ),
    ];
    const document = parameter(`[${rows.join(',')}]`);
    ctes.push(
      `u AS MATERIALIZED (SELECT * FROM jsonb_to_recordset(${document}::jsonb) AS u(${definitions.join(', ')}) WHERE ${guard})`,
    );
  }
  const deleted = deletes.size > 0 ? parameter([...deletes]) : '';
  targets.forEach(({ projection, table }, target) => {
    const names = ['id', 'state', ...projection.columns.map((column) => identifier(column.name))];
    const keys = columns.flatMap((column, index) => (column.target === target ? [keyOf(index)] : []));
    if (upserts.size > 0) {
      ctes.push(
        `w${target} AS (INSERT INTO ${table} (${names.join(', ')})
           SELECT id, state, ${keys.join(', ')} FROM u
           ON CONFLICT (id) DO UPDATE SET ${names
             .slice(1)
             .map((name) => `${name} = excluded.${name}`)
             .join(', ')})`,
      );
    }
    if (deletes.size > 0) {
      ctes.push(`d${target} AS (DELETE FROM ${table} WHERE id = ANY(${deleted}::text[]) AND ${guard})`);
    }
  });
  return ctes;
}

/** Whether two column values (`toJsonValue`) are written alike. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => item === b[index]);
  }
  return typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b);
}

/** Sends what `prepareRows` made: the delete, then the upsert. */
export async function executeRows(sql: SqlExecutor, prepared: PreparedRows): Promise<void> {
  if (prepared.deletes.length > 0) {
    await sql.query(`DELETE FROM ${prepared.table} WHERE id = ANY($1::text[])`, [prepared.deletes]);
  }
  if (prepared.upsert) await sql.query(prepared.upsert.text, [prepared.upsert.document]);
}

/**
 * A column value as JSON that `jsonb_to_recordset` reads into the column's type (arrays into `text[]`); null is
 * `undefined`, so that `JSON.stringify` leaves the key out (a missing key reads as null).
 */
function toJsonValue(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  switch (type) {
    case 'timestamptz':
      return value instanceof Date ? value.toISOString() : String(value);
    case 'bigint':
    case 'integer':
    case 'numeric':
      return String(value);
    default:
      return value;
  }
}

/** Loads the current states of the given rows (decoded with the projection's `codec`). */
export async function loadStates(
  sql: SqlExecutor,
  projection: Projection,
  qualifiedTable: string,
  ids: readonly string[],
): Promise<Map<string, unknown>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql.query<{ id: string; state: unknown }>(
    `SELECT id, state FROM ${qualifiedTable} WHERE id = ANY($1::text[])`,
    [ids],
  );
  const decode = projection.codec
    ? (state: unknown) => projection.codec!.decode(state)
    : (state: unknown) => state;
  return new Map(rows.map((row) => [row.id, decode(row.state)]));
}

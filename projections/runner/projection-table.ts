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

const PARAM_TYPE: Record<ColumnType, string> = {
  text: 'text[]',
  bigint: 'bigint[]',
  integer: 'integer[]',
  numeric: 'numeric[]',
  boolean: 'boolean[]',
  timestamptz: 'timestamptz[]',
  jsonb: 'jsonb[]',
  'text[]': 'jsonb[]',
};

/** Creates a generation's table and its indexes (`schema` for audit scratch copies). */
export async function createProjectionTable(
  sql: SqlExecutor,
  projection: Projection,
  table: string,
  schema?: string,
): Promise<void> {
  const qualified = schema ? `${identifier(schema)}.${identifier(table)}` : identifier(table);
  const columns = projection.columns.map((column) => `${identifier(column.name)} ${column.type}`);
  await sql.query(
    `CREATE TABLE ${qualified} (id text PRIMARY KEY, state jsonb NOT NULL${columns.map((c) => `, ${c}`).join('')})`,
  );
  for (const index of projection.indexes ?? []) {
    await sql.query(
      `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${identifier(`${table}_${index.name}`)} ON ${qualified}
         USING ${index.using ?? 'btree'} (${index.columns.join(', ')})${index.where ? ` WHERE ${index.where}` : ''}`,
    );
  }
}

/** Writes row states: one set-based upsert for the changed rows and one delete for the removed ones. */
export async function writeRows(
  sql: SqlExecutor,
  projection: Projection,
  qualifiedTable: string,
  upserts: ReadonlyMap<string, unknown>,
  deletes: ReadonlySet<string>,
): Promise<void> {
  if (deletes.size > 0) {
    await sql.query(`DELETE FROM ${qualifiedTable} WHERE id = ANY($1::text[])`, [[...deletes]]);
  }
  if (upserts.size === 0) return;
  const ids = [...upserts.keys()];
  const states = [...upserts.values()];
  const params: unknown[] = [ids, states.map((state) => JSON.stringify(state))];
  const unnestArgs = ['$1::text[]', '$2::jsonb[]'];
  const names = ['id', 'state'];
  const selects = ['u.id', 'u.state'];
  projection.columns.forEach((column, index) => {
    const name = identifier(column.name);
    params.push(states.map((state) => toParam(column.type, column.value(state))));
    unnestArgs.push(`$${index + 3}::${PARAM_TYPE[column.type]}`);
    names.push(name);
    selects.push(
      column.type === 'text[]'
        ? `CASE WHEN u.${name} IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(u.${name})) END`
        : `u.${name}`,
    );
  });
  const updates = names.slice(1).map((name) => `${name} = excluded.${name}`);
  await sql.query(
    `INSERT INTO ${qualifiedTable} (${names.join(', ')})
     SELECT ${selects.join(', ')} FROM unnest(${unnestArgs.join(', ')}) AS u(${names.join(', ')})
     ON CONFLICT (id) DO UPDATE SET ${updates.join(', ')}`,
    params,
  );
}

function toParam(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'jsonb':
    case 'text[]':
      return JSON.stringify(value);
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

/** Loads the current states of the given rows. */
export async function loadStates(
  sql: SqlExecutor,
  qualifiedTable: string,
  ids: readonly string[],
): Promise<Map<string, unknown>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql.query<{ id: string; state: unknown }>(
    `SELECT id, state FROM ${qualifiedTable} WHERE id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.state]));
}

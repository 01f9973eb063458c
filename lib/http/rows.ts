// A batch route's body (RouteSpec.rows): JSON `{ "<key>": [row, ...] }`, or
// CSV (Content-Type: text/csv) whose first line names the columns. Each row is
// checked on its own against the route's row schema, so a bad row is reported
// by its line and the others go on. A row's line is its place in the JSON list
// (1 for the first), or its line in the CSV file (2 for the first after the header).
// A batch function makes its reader itself, so only its bundle holds the CSV parser.
import { parse } from 'csv-parse/sync';
import { InvalidInput, UnsupportedMediaType, type ErrorDetail } from '../errors.ts';
import { validationDetails } from './errors.ts';
import type { RowsSpec } from './route.ts';
import { validatorFor } from './validators.ts';

export interface Row {
  line: number;
  value: Record<string, unknown>;
}

export interface RowProblem {
  line: number;
  errors: ErrorDetail[];
}

export interface Rows {
  rows: Row[];
  invalid: RowProblem[];
}

export function rowsReader(spec: RowsSpec): (contentType: string | undefined, rawBody: string) => Rows {
  const validate = validatorFor(spec.schema as Record<string, unknown>);
  const columns = new Set(Object.keys((spec.schema as { properties?: object }).properties ?? {}));
  return (contentType, rawBody) => {
    const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const given = type === 'text/csv' ? csvRows(rawBody, columns) : type === 'application/json' ? jsonRows(rawBody, spec.key) : undefined;
    if (!given) throw new UnsupportedMediaType(`Send the ${spec.key} as JSON (Content-Type: application/json) or as CSV (Content-Type: text/csv)`);
    if (given.length === 0) throw new InvalidInput(`There are no ${spec.key}`, [{ path: `/body/${spec.key}`, message: 'must hold at least one row' }], 'no_rows');
    if (given.length > spec.max) {
      throw new InvalidInput(`At most ${spec.max} ${spec.key} at once`, [{ path: `/body/${spec.key}`, message: `holds ${given.length} rows` }], 'too_many_rows');
    }
    const rows: Row[] = [];
    const invalid: RowProblem[] = [];
    for (const row of given) {
      if (validate(row.value)) rows.push(row);
      else invalid.push({ line: row.line, errors: validationDetails(validate.errors) });
    }
    return { rows, invalid };
  };
}

function jsonRows(rawBody: string, key: string): Row[] {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    throw new InvalidInput('The body is not valid JSON', undefined, 'malformed_json');
  }
  const list = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[key] : undefined;
  if (!Array.isArray(list)) throw new InvalidInput('The request is invalid', [{ path: `/body/${key}`, message: 'must be a list' }], 'invalid_request');
  return list.map((value, i) => ({ line: i + 1, value: value as Record<string, unknown> }));
}

function csvRows(rawBody: string, columns: Set<string>): Row[] {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(rawBody, { columns: true, info: true, skip_empty_lines: true, trim: true, bom: true });
  } catch (error) {
    throw new InvalidInput('The body is not valid CSV', [{ path: '/body', message: (error as { code?: string }).code ?? 'unreadable' }], 'malformed_csv');
  }
  const header = records[0] ? Object.keys(records[0].record) : [];
  const unknown = header.filter((name) => !columns.has(name));
  if (unknown.length) {
    throw new InvalidInput('The CSV header names columns no row takes', unknown.map((name) => ({ path: `/header/${name}`, message: `is not one of ${[...columns].join(', ')}` })), 'invalid_request');
  }
  // An empty cell is a field not given.
  return records.map(({ record, info }) => ({ line: info.lines, value: Object.fromEntries(Object.entries(record).filter(([, v]) => v !== '')) }));
}

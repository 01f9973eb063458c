// A batch route's rows: JSON or CSV, each row checked on its own and refused by its line.
import { describe, expect, it } from 'vitest';
import { rowsReader } from '../../../lib/http/rows.ts';

const read = rowsReader({
  key: 'companies',
  max: 3,
  schema: { type: 'object', additionalProperties: false, required: ['email'], properties: { email: { type: 'string', format: 'email' }, companyName: { type: 'string', minLength: 1 } } },
});

describe('a batch body', () => {
  it('as JSON: each row by its place in the list, the bad ones refused alone', () => {
    const { rows, invalid } = read('application/json; charset=utf-8', JSON.stringify({ companies: [{ email: 'a@x.co' }, { email: 'nope' }, { email: 'c@x.co', extra: 1 }] }));
    expect(rows).toEqual([{ line: 1, value: { email: 'a@x.co' } }]);
    expect(invalid).toEqual([
      { line: 2, errors: [{ path: '/email', message: 'must match format "email"' }] },
      { line: 3, errors: [{ path: '/extra', message: 'is not allowed' }] },
    ]);
  });

  it('as CSV: each row by its line in the file (the header is line 1), an empty cell a field not given, quoted commas kept', () => {
    const csv = 'email,companyName\r\na@x.co,"Acme, Inc."\r\n\r\nbad,\r\nc@x.co,\r\n';
    const { rows, invalid } = read('text/csv', csv);
    expect(rows).toEqual([
      { line: 2, value: { email: 'a@x.co', companyName: 'Acme, Inc.' } },
      { line: 5, value: { email: 'c@x.co' } },
    ]);
    expect(invalid).toEqual([{ line: 4, errors: [{ path: '/email', message: 'must match format "email"' }] }]);
  });

  it('refuses the whole body for what no row can fix: a column no row takes, malformed text, too many rows, none, another media type', () => {
    expect(() => read('text/csv', 'email,password\na@x.co,x\n')).toThrow(expect.objectContaining({ code: 'invalid_request', details: [expect.objectContaining({ path: '/header/password' })] }));
    expect(() => read('text/csv', 'email,companyName\n"unclosed,x\n')).toThrow(expect.objectContaining({ code: 'malformed_csv' }));
    expect(() => read('application/json', '{"companies": [')).toThrow(expect.objectContaining({ code: 'malformed_json' }));
    expect(() => read('application/json', JSON.stringify({ companies: {} }))).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => read('application/json', JSON.stringify({ companies: Array(4).fill({ email: 'a@x.co' }) }))).toThrow(expect.objectContaining({ code: 'too_many_rows' }));
    expect(() => read('application/json', JSON.stringify({ companies: [] }))).toThrow(expect.objectContaining({ code: 'no_rows' }));
    expect(() => read('text/plain', 'email\na@x.co')).toThrow(expect.objectContaining({ name: 'UnsupportedMediaType' }));
    expect(() => read(undefined, '')).toThrow(expect.objectContaining({ name: 'UnsupportedMediaType' }));
  });
});

// Imported first by the scripts that work on a stage's tables: lib/store/dynamodb.ts
// resolves the service's table names from TABLE_PREFIX when it is loaded, as a
// Lambda does at its cold start, so a script sets it for its --stage before
// any module of lib/ is evaluated.
import { parseArgs } from 'node:util';

/** The prefix of a stage's tables, as serverless.yml names them (TABLE_PREFIX). */
export const stagePrefix = (stage: string) => `agency-backend-${stage}-`;

const { values } = parseArgs({ options: { stage: { type: 'string', default: 'local' } }, strict: false, allowPositionals: true });
process.env.TABLE_PREFIX ||= stagePrefix(String(values.stage));

// The deploy-time settings of the operations resources (infra/operations.yml,
// infra/alarms.cjs): read by serverless.yml only, never by a Lambda. Their raw
// values come from the deploying shell or .env.<stage> through serverless.yml
// custom.operations; this checks them, fills in the defaults and fails the
// deployment with the setting's name when one is wrong:
//   ${file(./infra/operations.cjs):logRetentionInDays | tracing | tracingSwitch | alarmEmail}
// (Serverless resolves `${file(...)}` of a .cjs by calling its export.)

/** The retention periods CloudWatch Logs accepts (PutRetentionPolicy), in days, as far as Serverless's schema knows them (not 1096). */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1827, 2192, 2557, 2922, 3288, 3653];
const DEFAULT_RETENTION_DAYS = 30;

/** @param {{ alarmEmail?: string, logRetentionDays?: string, tracing?: string }} raw */
function operationsSettings(raw = {}) {
  const text = (value) => String(value ?? '').trim();
  const problems = [];

  const days = text(raw.logRetentionDays);
  const logRetentionInDays = days === '' ? DEFAULT_RETENTION_DAYS : Number(days);
  if (!RETENTION_DAYS.includes(logRetentionInDays)) problems.push(`LOG_RETENTION_DAYS must be one of ${RETENTION_DAYS.join(', ')} (CloudWatch Logs' periods), not "${days}"`);

  const switchText = text(raw.tracing).toLowerCase();
  if (!['', 'true', 'false', '1', '0'].includes(switchText)) problems.push(`XRAY_TRACING must be true or false, not "${text(raw.tracing)}"`);
  const tracing = switchText === 'true' || switchText === '1';

  const alarmEmail = text(raw.alarmEmail);
  if (alarmEmail && !/^[^@\s,]+@[^@\s,]+\.[^@\s,]+$/.test(alarmEmail)) problems.push(`ALARM_EMAIL must be one e-mail address, not "${alarmEmail}"`);

  if (problems.length) throw new Error(`Invalid operations settings: ${problems.join('; ')}`);
  // tracingSwitch: the same switch as a string, for a CloudFormation condition to compare.
  return { logRetentionInDays, tracing, tracingSwitch: tracing ? 'on' : 'off', alarmEmail };
}

module.exports = async ({ resolveConfigurationProperty }) => operationsSettings(await resolveConfigurationProperty(['custom', 'operations']));
module.exports.operationsSettings = operationsSettings;
module.exports.RETENTION_DAYS = RETENTION_DAYS;

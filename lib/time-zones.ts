// IANA time zones without ICU's date formatter on the common path.
//
// The first Intl formatter a process makes (DateTimeFormat, NumberFormat)
// has V8 list every locale ICU can format for: 14-15 ms on this machine, paid
// at the cold start of every function that names or shows a zone. For the
// zone names ICU lists as canonical (Intl.supportedValuesOf, 1.7 ms), neither
// needs a formatter:
// - the name is checked against that list;
// - what a clock in the zone shows comes from Date's local-time getters, read
//   while process.env.TZ names the zone. Node re-reads the zone when the
//   process's own environment gets or loses TZ (src/node_env_var.cc; its test
//   test/parallel/test-process-env-tz.js), and the getters use the same ICU
//   zone data as the formatter. The switch is synchronous and undone at once.
// Every other name goes to the formatter, as before: ICU's other spellings of
// a zone (Asia/Kolkata, Etc/UTC, europe/berlin: the formatter ignores case,
// TZ does not) and any thread where assigning TZ moves nothing (a worker
// thread with an environment of its own, as serverless-offline's --watch
// runs handlers). The switch is process-wide: a worker thread started during
// it would start in that zone. Lambda runs handlers in the main thread and
// this service starts no worker threads.

const ZONE_NAME = /^(UTC|[A-Za-z_]+(\/[A-Za-z0-9_+-]+)+)$/;

let canonicalZones: Set<string> | undefined;
/** Names the TZ switch is exact for: ICU's canonical ones, exactly as ICU spells them. */
const switchable = (zone: string) => zone === 'UTC' || (canonicalZones ??= new Set(Intl.supportedValuesOf('timeZone'))).has(zone);

const formatters = new Map<string, Intl.DateTimeFormat>();
/** ICU's formatter for the zone, made once; a RangeError for a zone ICU does not know. */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let made = formatters.get(timeZone);
  if (!made) {
    const fields = { year: 'numeric', month: 'numeric', day: 'numeric', weekday: 'short', hour: 'numeric', minute: 'numeric' } as const;
    made = new Intl.DateTimeFormat('en-US', { timeZone, ...fields, hourCycle: 'h23' });
    formatters.set(timeZone, made);
  }
  return made;
}

/** An IANA zone name the runtime knows, as given (ICU's other spellings too); offsets, POSIX rules and unknown names → undefined. */
export function ianaZone(raw: string): string | undefined {
  if (!ZONE_NAME.test(raw)) return undefined;
  if (switchable(raw)) return raw;
  try {
    // Stored as given: ICU's own resolution of aliases differs between versions.
    formatterFor(raw);
    return raw;
  } catch {
    return undefined;
  }
}

/** What a clock shows: month 1-12, weekday 0 (Sunday) to 6, hour 0-23. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  weekday: number;
  hour: number;
  minute: number;
}

/** What a clock in `zone` shows at `instant`; an invalid date or a zone ICU does not know is a RangeError, as with Intl. */
export function wallClock(instant: Date, zone: string): WallClock {
  if (Number.isNaN(instant.getTime())) throw new RangeError('Invalid time value');
  if (switchable(zone) && tzSwitchWorks()) {
    return underZone(zone, () => ({
      year: instant.getFullYear(),
      month: instant.getMonth() + 1,
      day: instant.getDate(),
      weekday: instant.getDay(),
      hour: instant.getHours(),
      minute: instant.getMinutes(),
    }));
  }
  return icuWallClock(instant, zone);
}

/** What ICU's formatter shows: the reading for every name and thread the TZ switch is not exact for. */
export function icuWallClock(instant: Date, zone: string): WallClock {
  const parts = formatterFor(zone).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    year: Number(part('year')),
    month: Number(part('month')),
    day: Number(part('day')),
    weekday: WEEKDAYS.indexOf(part('weekday')),
    hour: Number(part('hour')),
    minute: Number(part('minute')),
  };
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function underZone<T>(zone: string, read: () => T): T {
  const before = process.env.TZ;
  process.env.TZ = zone;
  try {
    return read();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

let switchWorks: boolean | undefined;
/** Whether assigning TZ moves Date's local time in this thread: two zones no host can be in at once. */
function tzSwitchWorks(): boolean {
  switchWorks ??= underZone('Etc/GMT-14', () => new Date(0).getTimezoneOffset()) === -840 && underZone('Etc/GMT+12', () => new Date(0).getTimezoneOffset()) === 720;
  return switchWorks;
}

// IANA time zones without ICU's date formatter on the common path: the first
// Intl formatter a process makes has V8 list every locale ICU knows, at every
// cold start that names or shows a zone (docs/performance.md has the cost).
// For ICU's canonical zone names, the name is checked against
// Intl.supportedValuesOf, and a clock in the zone is read from Date's
// local-time getters while process.env.TZ names it (Node re-reads the zone when
// TZ changes: src/node_env_var.cc); the switch is synchronous and undone at once.
// Other spellings (Asia/Kolkata, europe/berlin) and threads where TZ moves
// nothing go to the formatter. The switch is process-wide: this service starts
// no worker threads, and Lambda runs handlers in the main thread.

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

// IANA time zones without ICU's date formatter on the common path.
//
// The first Intl formatter a process makes (DateTimeFormat, NumberFormat)
// has V8 list every locale ICU can format for: 14-15 ms on this machine, paid
// at the cold start of every function that names or shows a zone. Neither
// needs a formatter:
// - a zone's name is checked against ICU's canonical zones
//   (Intl.supportedValuesOf, 1.7 ms); only a name not among them (an alias
//   such as Asia/Kolkata, or an unknown one) is put to the formatter;
// - what a clock in a zone shows comes from Date's local-time getters, read
//   while process.env.TZ names that zone. Node re-reads the zone when
//   process.env.TZ is assigned (its documentation of process.env.TZ), and the
//   getters use the same ICU zone data as the formatter. The switch is
//   synchronous and undone at once, so no other code runs under it.

const ZONE_NAME = /^(UTC|[A-Za-z_]+(\/[A-Za-z0-9_+-]+)+)$/;

let canonicalZones: Set<string> | undefined;

/** An IANA zone name the runtime knows, as given (aliases too); offsets, POSIX rules and unknown names → undefined. */
export function ianaZone(raw: string): string | undefined {
  if (!ZONE_NAME.test(raw)) return undefined;
  canonicalZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (raw === 'UTC' || canonicalZones.has(raw)) return raw;
  try {
    // Stored as given: ICU's own resolution of aliases differs between versions.
    new Intl.DateTimeFormat('en-US', { timeZone: raw });
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

/** What a clock in `zone` shows at `instant`; a zone ianaZone refuses is a RangeError, as with Intl. */
export function wallClock(instant: Date, zone: string): WallClock {
  if (!ianaZone(zone)) throw new RangeError(`Invalid time zone: ${zone}`);
  const before = process.env.TZ;
  process.env.TZ = zone;
  try {
    return {
      year: instant.getFullYear(),
      month: instant.getMonth() + 1,
      day: instant.getDate(),
      weekday: instant.getDay(),
      hour: instant.getHours(),
      minute: instant.getMinutes(),
    };
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

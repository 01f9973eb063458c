// lib/time-zones.ts against ICU's own formatter (icuWallClock, the reading it
// falls back to), which it avoids at cold start: for every zone the runtime
// knows, it must name the same zones and show the same wall clock at any
// instant (DST switches, half- and quarter-hour offsets, historical local mean
// times included), and leave process.env.TZ as it found it.
import fc from 'fast-check';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ianaZone, icuWallClock, wallClock } from '../../lib/time-zones.ts';

const ALIASES = ['UTC', 'Etc/UTC', 'Etc/GMT+5', 'Etc/GMT-14', 'Asia/Kolkata', 'Europe/Kyiv', 'America/Nuuk', 'US/Eastern', 'US/Pacific'];
const ZONES = [...Intl.supportedValuesOf('timeZone'), ...ALIASES];

// Around this year's switches in both hemispheres, every 15 minutes, and a few far ones.
const around = (iso: string) => Array.from({ length: 17 }, (_, i) => new Date(Date.parse(iso) + (i - 8) * 15 * 60_000));
const INSTANTS = [
  ...around('2026-03-08T08:00:00Z'), // the United States
  ...around('2026-03-29T01:00:00Z'), // the European Union
  ...around('2026-04-05T03:00:00Z'), // Australia and New Zealand
  ...around('2026-10-04T16:00:00Z'),
  ...around('2026-10-25T01:00:00Z'),
  ...around('2026-11-01T06:00:00Z'),
  new Date('1901-06-01T12:00:00Z'),
  new Date('1937-06-30T23:59:00Z'),
  new Date('1969-12-31T23:59:00Z'),
  new Date('1970-01-01T00:00:00Z'),
  new Date('2000-02-29T12:34:00Z'),
  new Date('2038-01-19T03:14:00Z'),
  new Date('2099-12-31T23:59:00Z'),
];

describe('wallClock', () => {
  const tzBefore = process.env.TZ;
  afterEach(() => {
    if (tzBefore === undefined) delete process.env.TZ;
    else process.env.TZ = tzBefore;
  });

  it('shows what ICU shows, in every zone it knows, around the DST switches', () => {
    // One comparison per zone and instant (some 46,000), kept out of expect so a failure lists every differing reading at once.
    const differing = ZONES.flatMap((zone) =>
      INSTANTS.flatMap((instant) => {
        const ours = wallClock(instant, zone);
        const icu = icuWallClock(instant, zone);
        return JSON.stringify(ours) === JSON.stringify(icu) ? [] : [{ zone, instant: instant.toISOString(), ours, icu }];
      }),
    );
    expect(differing).toEqual([]);
  });

  it('shows what ICU shows at any instant from 1900 to 2100', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }), (zone, instant) => {
        expect(wallClock(instant, zone)).toEqual(icuWallClock(instant, zone));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([undefined, ':UTC', 'Asia/Tokyo'])('leaves process.env.TZ as it found it (%s)', (tz) => {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
    const localHour = new Date('2026-03-03T09:00:00Z').getHours();
    expect(wallClock(new Date('2026-03-03T09:00:00Z'), 'Pacific/Chatham').hour).toBe(22);
    expect(process.env.TZ).toBe(tz);
    expect('TZ' in process.env).toBe(tz !== undefined);
    expect(new Date('2026-03-03T09:00:00Z').getHours()).toBe(localHour);
  });

  it("reads a canonical zone without ICU's formatter in the main thread (the cold-start saving)", () => {
    const formatter = vi.spyOn(Intl.DateTimeFormat.prototype, 'formatToParts');
    try {
      expect(wallClock(new Date('2026-07-01T12:00:00Z'), 'America/Chicago')).toEqual({ year: 2026, month: 7, day: 1, weekday: 3, hour: 7, minute: 0 });
      expect(formatter).not.toHaveBeenCalled();
    } finally {
      formatter.mockRestore();
    }
  });

  it('reads the zone as ICU does when it is spelled another way (TZ is case-sensitive, the formatter is not)', () => {
    const at = new Date('2026-07-01T12:00:00Z');
    for (const [given, zone] of [['europe/berlin', 'Europe/Berlin'], ['America/new_york', 'America/New_York'], ['etc/gmt+5', 'Etc/GMT+5'], ['asia/kolkata', 'Asia/Calcutta']] as const) {
      expect(ianaZone(given)).toBe(given);
      expect([given, wallClock(at, given)]).toEqual([given, wallClock(at, zone)]);
    }
  });

  it('shows the zone in a worker thread with an environment of its own, where assigning TZ moves nothing', async () => {
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      import(workerData.module).then(({ wallClock }) => parentPort.postMessage(wallClock(new Date('2026-09-07T16:00:00Z'), 'America/Los_Angeles')));
    `;
    const module = new URL('../../lib/time-zones.ts', import.meta.url).href;
    const worker = new Worker(code, { eval: true, env: { ...process.env, TZ: 'Asia/Tokyo' }, workerData: { module } });
    const shown = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
    await worker.terminate();
    expect(shown).toEqual({ year: 2026, month: 9, day: 7, weekday: 1, hour: 9, minute: 0 });
  });

  it('refuses an invalid date, as ICU does', () => {
    expect(() => wallClock(new Date('not a date'), 'Europe/Berlin')).toThrow(RangeError);
  });

  it('refuses a zone it does not know, as ICU does', () => {
    for (const zone of ['Mars/Olympus', 'Europe/Atlantis', '']) {
      expect(() => wallClock(new Date(), zone)).toThrow(RangeError);
      expect(process.env.TZ).toBe(tzBefore);
    }
  });
});

describe('ianaZone', () => {
  const formatterKnows = (zone: string) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  };

  it('knows every zone name ICU knows, canonical or alias, as given', () => {
    for (const zone of ZONES) expect([zone, ianaZone(zone)]).toEqual([zone, zone]);
  });

  it.each(['Mars/Olympus', 'Europe/Atlantis', '+01:00', '-0500', 'EST5EDT', 'GMT', 'europe berlin', 'Europe/Berlin; drop', '../etc/passwd', 'Europe//Berlin', ''])(
    'refuses %j, which is no IANA zone name or which ICU does not know',
    (zone) => {
      expect(ianaZone(zone)).toBeUndefined();
    },
  );

  it('agrees with the formatter on every name of the right form', () => {
    for (const zone of [...ZONES, 'Mars/Olympus', 'Europe/Atlantis', 'America/Argentina/Nowhere', 'Etc/GMT+15']) {
      expect([zone, ianaZone(zone) !== undefined]).toEqual([zone, formatterKnows(zone)]);
    }
  });
});

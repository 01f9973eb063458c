import { afterEach, describe, expect, it, vi } from 'vitest';
import { emfMetrics, metrics } from '../../lib/metrics.ts';

describe('metrics in CloudWatch Embedded Metric Format', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes one line CloudWatch Logs reads as a count, by stage alone and by stage and the given dimensions', () => {
    const lines: string[] = [];
    const m = emfMetrics({ namespace: 'agency-backend', stage: 'prod', write: (l) => lines.push(l), now: () => 1_700_000_000_000 });
    m.count('FollowUpsRecorded', { Subject: 'dropbox' }, { accountId: 'acct-1' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(JSON.parse(lines[0]!)).toEqual({
      _aws: {
        Timestamp: 1_700_000_000_000,
        CloudWatchMetrics: [{ Namespace: 'agency-backend', Dimensions: [['Stage'], ['Stage', 'Subject']], Metrics: [{ Name: 'FollowUpsRecorded', Unit: 'Count' }] }],
      },
      Stage: 'prod',
      Subject: 'dropbox',
      FollowUpsRecorded: 1,
      accountId: 'acct-1',
    });
  });

  it('keeps the stage, the dimensions and the value when the context has properties of the same names', () => {
    const lines: string[] = [];
    emfMetrics({ namespace: 'ns', stage: 'prod', write: (l) => lines.push(l) }).count('Things', { Subject: 'close' }, { Stage: 'x', Subject: 'y', Things: 99, _aws: 'no' }, 2);
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ Stage: 'prod', Subject: 'close', Things: 2 });
    expect(entry._aws.CloudWatchMetrics[0].Namespace).toBe('ns');
  });

  it('on Lambda: writes to stdout, whatever the log level, under the service name and stage', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    // The test settings make the logs silent (LOG_LEVEL=silent): metrics are not logs, they still go out.
    metrics.count('FollowUpsRecorded', { Subject: 'billing' });
    expect(written).toHaveLength(1);
    expect(written[0]!.endsWith('\n')).toBe(true);
    expect(JSON.parse(written[0]!)).toMatchObject({ Stage: process.env.STAGE, Subject: 'billing', _aws: { CloudWatchMetrics: [{ Namespace: 'agency-backend' }] } });
  });
});

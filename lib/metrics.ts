// The service's own CloudWatch metrics, written as log lines in Embedded Metric
// Format: CloudWatch Logs turns each line into data points, so a metric costs no
// API call, client or wait. The alarms on them are in infra/operations.yml.
// A few lines of our own rather than Powertools Metrics, as lib/log.ts says:
// counting one thing at a time needs no buffering, flushing or middleware.
// Every metric is recorded twice: with Stage alone (what an alarm watches) and
// with Stage and the given dimensions (what an operator breaks it down by).

import { metricsSettings } from './config.ts';

export type Dimensions = Record<string, string>;

export interface Metrics {
  /**
   * Counts one occurrence (or `value`) of `name`, with these dimensions besides
   * Stage. `context` goes along in the line as properties, searchable in the
   * logs but not dimensions (ids would make a metric per value).
   */
  count(name: string, dimensions: Dimensions, context?: Record<string, unknown>, value?: number): void;
}

export interface EmfOptions {
  namespace: string;
  stage: string;
  /** Where each line goes; stdout on Lambda, where CloudWatch Logs reads it. */
  write?: (line: string) => void;
  now?: () => number;
}

/** One EMF line per call, written at once: nothing is buffered, so nothing is lost when a Lambda freezes. */
export function emfMetrics(options: EmfOptions): Metrics {
  const write = options.write ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  return {
    count(name, dimensions, context = {}, value = 1) {
      const names = Object.keys(dimensions).filter((d) => d !== 'Stage');
      const entry = {
        // Properties first, so that a dimension or the metric's own value always wins over one of the same name.
        ...context,
        _aws: {
          Timestamp: now(),
          CloudWatchMetrics: [
            {
              Namespace: options.namespace,
              Dimensions: names.length ? [['Stage'], ['Stage', ...names]] : [['Stage']],
              Metrics: [{ Name: name, Unit: 'Count' }],
            },
          ],
        },
        ...dimensions,
        Stage: options.stage,
        [name]: value,
      };
      write(JSON.stringify(entry));
    },
  };
}

let service: Metrics | undefined;

/** The service's metrics on Lambda: namespace SERVICE_NAME, Stage STAGE, read on first use. */
export const metrics: Metrics = {
  count: (...args) => {
    service ??= emfMetrics(metricsSettings());
    service.count(...args);
  },
};

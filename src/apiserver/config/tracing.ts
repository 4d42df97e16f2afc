// TracingConfiguration: where spans go and how many are sampled.
import { z } from 'zod';
import type { IssueList } from './issues.js';

export const MAX_SAMPLING_RATE_PER_MILLION = 1_000_000;

export const tracingConfigurationSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.literal('TracingConfiguration'),
  endpoint: z.string().optional(),
  samplingRatePerMillion: z.number().int().optional(),
});

export type TracingConfiguration = z.infer<typeof tracingConfigurationSchema>;

export function validateTracing(issues: IssueList, cfg: TracingConfiguration): void {
  const rate = cfg.samplingRatePerMillion;
  if (rate !== undefined && (rate < 0 || rate > MAX_SAMPLING_RATE_PER_MILLION)) {
    issues.invalid(
      ['samplingRatePerMillion'],
      String(rate),
      `must be between 0 and ${MAX_SAMPLING_RATE_PER_MILLION}, inclusive`,
    );
  }
  if (cfg.endpoint !== undefined) {
    const ep = cfg.endpoint;
    // host:port, optionally with a scheme (the OTLP gRPC exporter accepts both).
    const hostPort = ep.replace(/^(https?|grpc):\/\//, '');
    if (ep === '' || !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}\/?$/.test(hostPort)) {
      issues.invalid(['endpoint'], ep, 'must be host:port, such as "localhost:4317"');
    } else if (ep.startsWith('https://')) {
      issues.invalid(
        ['endpoint'],
        ep,
        'the connection is insecure (no TLS): https is not supported',
      );
    }
  }
}

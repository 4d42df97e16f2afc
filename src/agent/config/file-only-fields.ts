// The reference's KubeletConfiguration fields that have no flag, with the help
// text the JSON Schema shows. Their defaults are in defaults.ts, their rules in
// validate-file-fields.ts; which of them take no effect here, and why, in cli/inert-options.ts.
export const FILE_ONLY_FIELDS: Readonly<Record<string, string>> = {
  shutdownGracePeriod:
    'Total time the node delays its shutdown for pods to terminate (graceful node shutdown ' +
    'through systemd-logind). 0s: off.',
  shutdownGracePeriodCriticalPods: 'Part of shutdownGracePeriod kept for critical pods.',
  shutdownGracePeriodByPodPriority:
    'Shutdown grace periods by pod priority class value (instead of shutdownGracePeriod).',
  podLogsDir: "Directory of the pods' container log files (absolute, normalized, ASCII).",
  imageMaximumGCAge: 'An image unused for this long is removed whatever the disk usage. 0s: never.',
  maxParallelImagePulls:
    'At most this many image pulls at once when serializeImagePulls is false. Unset: no limit.',
  containerLogMaxWorkers: 'How many container log files are rotated at once.',
  containerLogMonitorInterval:
    'How often container log files are checked for rotation (3s or more).',
  memorySwap: 'swapBehavior: "" or NoSwap (containers get no swap) or LimitedSwap.',
  memoryThrottlingFactor:
    'Fraction of the memory limit at which memory.high throttles (MemoryQoS, cgroup v2).',
  singleProcessOOMKill:
    'Whether the OOM killer kills single processes rather than the whole container group ' +
    '(cgroup v2). Unset: true on cgroup v1, false on v2.',
  crashLoopBackOff:
    'maxContainerRestartPeriod: the cap of the container restart back-off ' +
    '(PlatletCrashLoopBackOffMax, 1s..300s).',
  enableProfilingHandler:
    'Serve the profiling handlers under /debug/pprof (with the debugging handlers).',
  enableDebugFlagsHandler: 'Serve /debug/flags/v (with the debugging handlers).',
  enableSystemLogHandler:
    "Serve the node's log directory under /logs/ (with the debugging handlers).",
  enableSystemLogQuery: 'Allow log queries on /logs/ (NodeLogQuery, needs enableSystemLogHandler).',
  tracing:
    'OpenTelemetry tracing: endpoint (dns, unix or unix-abstract) and samplingRatePerMillion.',
  iptablesMasqueradeBit: 'Bit of the iptables fwmark space marking packets for SNAT (0..31).',
  iptablesDropBit: 'Bit of the iptables fwmark space marking packets to drop (0..31).',
  configMapAndSecretChangeDetectionStrategy:
    'How ConfigMap and Secret volumes see changes: Get, Cache or Watch.',
  showHiddenMetricsForVersion: 'The previous minor version whose hidden metrics are shown again.',
};

// What the node part reports about pods without the workers calling it: lifecycle events derived
// from status changes, the events the workers raise (hooks, image pulls, probes, kills), and the
// pod start latency. Pods the workers reached before this is set up are reported as if just seen;
// pods adopted after an agent restart (their start time is older than this process) were reported
// by the previous process and are not.

import type { Histogram } from 'prom-client';
import type { Clock } from '../../common/util/clock.js';
import type { Pod, PodStatus } from '../pod/types.js';
import { derivePodEvents, podRef, type PodStatusLike } from './events/pod-events.js';
import type { EventType, ObjectReference } from './events/types.js';

export interface PodReportingOptions {
  statuses: {
    entriesList(): { pod: Pod; status: PodStatus }[];
    onChange(listener: (pod: Pod, status: PodStatus) => void): void;
    /** Events the workers raise about pods (failed lifecycle hooks, image pulls). */
    onPodEvent?(
      listener: (e: {
        pod: Pod;
        fieldPath?: string;
        type: EventType;
        reason: string;
        message: string;
      }) => void,
    ): void;
  };
  events: { event(obj: ObjectReference, type: EventType, reason: string, message: string): void };
  podStartDuration: Histogram;
  clock: Clock;
  /** When this process started (ms since the epoch). */
  processStartMs: number;
}

const MAX_TRACKED = 10_000;

function startOf(status: PodStatus): number {
  return status.startTime === undefined ? Number.NaN : Date.parse(status.startTime);
}

/** What reportPods remembers between status changes (bounded by MAX_TRACKED). */
interface ReportState {
  readonly lastStatus: Map<string, PodStatusLike>;
  readonly measured: Set<string>;
}

/** A pod this process took on (not one adopted after a restart). */
function ownPod(o: PodReportingOptions, status: PodStatus): boolean {
  return startOf(status) >= o.processStartMs - 1000;
}

/**
 * Pod start latency: from status.startTime (when the agent took the pod on) to when its
 * containers were all running (the latest running container's startedAt).
 */
function measureStart(
  o: PodReportingOptions,
  state: ReportState,
  uid: string,
  status: PodStatus,
): void {
  if (status.phase !== 'Running' || state.measured.has(uid) || !ownPod(o, status)) return;
  const started = status.containerStatuses
    .map((c) => (c.state.running?.startedAt ? Date.parse(c.state.running.startedAt) : Number.NaN))
    .filter((n) => !Number.isNaN(n));
  const runningAt = started.length > 0 ? Math.max(...started) : o.clock.nowMs();
  if (state.measured.size >= MAX_TRACKED) state.measured.clear();
  state.measured.add(uid);
  o.podStartDuration.observe(Math.max(0, runningAt - startOf(status)) / 1000);
}

/**
 * A status change: the start latency, the lifecycle events it implies, and the remembered status.
 */
function onStatus(o: PodReportingOptions, state: ReportState, pod: Pod, status: PodStatus): void {
  measureStart(o, state, pod.metadata.uid, status);
  const s = status as unknown as PodStatusLike;
  const prev = state.lastStatus.get(pod.metadata.uid);
  if (prev !== undefined || ownPod(o, status)) {
    for (const e of derivePodEvents(pod, prev, s))
      o.events.event({ ...podRef(pod), fieldPath: e.fieldPath }, e.type, e.reason, e.message);
  }
  if (prev === undefined && state.lastStatus.size >= MAX_TRACKED) {
    state.lastStatus.clear();
  }
  state.lastStatus.set(pod.metadata.uid, s);
}

export function reportPods(o: PodReportingOptions): void {
  const state: ReportState = { lastStatus: new Map(), measured: new Set() };
  for (const e of o.statuses.entriesList()) onStatus(o, state, e.pod, e.status);
  o.statuses.onChange((pod, status) => onStatus(o, state, pod, status));
  o.statuses.onPodEvent?.((e) =>
    o.events.event(
      { ...podRef(e.pod), ...(e.fieldPath !== undefined ? { fieldPath: e.fieldPath } : {}) },
      e.type,
      e.reason,
      e.message,
    ),
  );
}

// One line of the engine's event stream (GET /events, one JSON object a line) as a container
// event of one of our pods: decoded, not cast, since the stream is the engine's to write.
import { z } from 'zod';
import { LABELS, type ContainerEventListener } from '../types.js';

const DockerEventSchema = z.object({
  status: z.string().optional(),
  id: z.string().optional(),
  Actor: z.object({ Attributes: z.record(z.string(), z.string()).optional() }).optional(),
});

export type ContainerEvent = Parameters<ContainerEventListener>[0];

/**
 * The event a line stands for; undefined for a partial or foreign line, or one without our pod
 * label.
 */
export function containerEventOf(line: string): ContainerEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const r = DockerEventSchema.safeParse(value);
  if (!r.success) return undefined;
  const e = r.data;
  const uid = e.Actor?.Attributes?.[LABELS.podUid];
  if (!uid || !e.id) return undefined;
  return { podUid: uid, containerId: e.id, type: e.status === 'die' ? 'exited' : 'started' };
}

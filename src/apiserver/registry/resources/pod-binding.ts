// POST pods/<name>/binding: the reference's BindingREST. The Binding names the pod (its name must
// be the URL's) and a target Node; the pod, not being deleted and not yet bound, gets
// spec.nodeName and the Binding's annotations, and its PodScheduled condition turns True. A pod
// already bound or being deleted is a 409 on pods/binding in the reference's words. The answer is
// a Success Status (201).

import type { Clock } from '../../../common/util/clock.js';
import { isRecord, listOf, recordOf } from '../../../common/util/json-shape.js';
import type { ActionCall, SubresourceAction } from '../../handlers/actions.js';
import { timeString } from '../meta.js';
import type { Registry } from '../registry.js';
import { metaOf, objAt, str, type Obj, type ResourceDef } from '../types.js';
import { badRequest, conflict, StatusError } from '../../status.js';

export interface PodBindingOptions {
  readonly registry: Registry;
  readonly podDef: ResourceDef;
  readonly clock: Clock;
}

/**
 * UpdatePodCondition: the condition set True; its transition time moves when its status changes.
 */
export function withCondition(status: Obj, condition: Obj, now: string): Obj {
  const conditions = listOf(status['conditions']).filter(isRecord);
  const i = conditions.findIndex((c) => c['type'] === condition['type']);
  const old = i < 0 ? undefined : conditions[i];
  const next: Obj = {
    ...condition,
    lastProbeTime: null,
    lastTransitionTime:
      old !== undefined && old['status'] === condition['status']
        ? (old['lastTransitionTime'] ?? now)
        : now,
  };
  const out = [...conditions];
  if (i < 0) out.push(next);
  else out[i] = next;
  return { ...status, conditions: out };
}

/** ValidatePodBinding, answered as the reference answers it (a plain error: 500 Unknown). */
function validateBinding(body: Obj): void {
  const target = recordOf(body['target']);
  const kind = str(target['kind']) ?? '';
  const problems: string[] = [];
  if (kind !== '' && kind !== 'Node')
    problems.push(
      `target.kind: Unsupported value: ${JSON.stringify(kind)}: supported values: ` +
        `"Node", "<empty>"`,
    );
  if ((str(target['name']) ?? '') === '') problems.push('target.name: Required value');
  if (problems.length > 0)
    throw new StatusError(
      500,
      'Unknown',
      problems.length === 1 ? (problems[0] ?? '') : `[${problems.join(', ')}]`,
    );
}

export class PodBindingAction implements SubresourceAction {
  readonly kind = 'Binding';
  readonly apiVersion = 'v1';
  private readonly o: PodBindingOptions;
  constructor(o: PodBindingOptions) {
    this.o = o;
  }

  async create(call: ActionCall): Promise<{ code: number; object: Obj }> {
    const meta = recordOf(call.body['metadata']);
    if ((str(meta['name']) ?? '') !== call.name)
      throw badRequest('name in URL does not match name in Binding object');
    validateBinding(call.body);
    const { registry, podDef } = this.o;
    await registry.admitAction(
      podDef,
      'binding',
      call,
      { ...call.body, metadata: { ...meta, namespace: call.namespace } },
      call,
    );
    const node = str(recordOf(call.body['target'])['name']) ?? '';
    const annotations = recordOf(meta['annotations']);
    await registry.update(
      podDef,
      call.namespace,
      call.name,
      {
        user: call.user,
        dryRun: call.dryRun,
        fieldManager: 'kube-scheduler',
        subresource: 'binding',
      },
      (pod) => {
        if (pod === undefined)
          throw new StatusError(404, 'NotFound', `pods "${call.name}" not found`, {
            name: call.name,
            group: '',
            kind: 'pods',
          });
        const refuse = (why: string): StatusError => conflict('pods/binding', '', call.name, why);
        if (metaOf(pod)['deletionTimestamp'] !== undefined)
          throw refuse(`pod ${call.name} is being deleted, cannot be assigned to a host`);
        const spec = objAt(pod, 'spec') ?? {};
        if ((str(spec['nodeName']) ?? '') !== '')
          throw refuse(
            `pod ${call.name} is already assigned to node ${JSON.stringify(spec['nodeName'])}`,
          );
        if (listOf(spec['schedulingGates']).length > 0)
          throw refuse(`pod ${call.name} has non-empty .spec.schedulingGates`);
        spec['nodeName'] = node;
        const m = metaOf(pod);
        if (Object.keys(annotations).length > 0)
          m['annotations'] = { ...recordOf(m['annotations']), ...annotations };
        pod['status'] = withCondition(
          recordOf(pod['status']),
          { type: 'PodScheduled', status: 'True' },
          timeString(this.o.clock.now()),
        );
        return pod;
      },
    );
    return {
      code: 201,
      object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 },
    };
  }
}

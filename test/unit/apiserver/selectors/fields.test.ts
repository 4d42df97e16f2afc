import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SUPPORTED_FIELDS,
  checkFieldsSupported,
  fieldGetterFor,
  parseFieldSelector,
} from '../../../../src/apiserver/selectors/index.js';

test('CSR fields', () => {
  const get = fieldGetterFor('certificatesigningrequests', {
    metadata: { name: 'c1' },
    spec: { signerName: 'example.com/s' },
  });
  assert.equal(get('metadata.name'), 'c1');
  assert.equal(get('metadata.namespace'), '');
  assert.equal(get('spec.signerName'), 'example.com/s');
  assert.equal(get('spec.username'), undefined);
});

test('Event fields: source falls back to reportingComponent, reportingComponent is its own field', () => {
  const ev = {
    metadata: { name: 'e1', namespace: 'default' },
    involvedObject: {
      kind: 'Node',
      name: 'n1',
      uid: 'u',
      apiVersion: 'v1',
      resourceVersion: '3',
      fieldPath: 'spec',
    },
    reason: 'Started',
    type: 'Normal',
    reportingComponent: 'platform.io/nodeagent',
  };
  const get = fieldGetterFor('events', ev);
  assert.equal(get('source'), 'platform.io/nodeagent');
  assert.equal(get('reportingComponent'), 'platform.io/nodeagent');
  assert.equal(get('involvedObject.namespace'), '');
  assert.equal(get('involvedObject.kind'), 'Node');
  assert.equal(get('involvedObject.resourceVersion'), '3');
  assert.equal(get('reason'), 'Started');
  assert.equal(get('type'), 'Normal');
  assert.equal(get('metadata.namespace'), 'default');
  const withSource = fieldGetterFor('events', { ...ev, source: { component: 'nodeagent' } });
  assert.equal(withSource('source'), 'nodeagent');
  assert.equal(withSource('reportingComponent'), 'platform.io/nodeagent');
});

test('Node and Pod booleans read as true/false, podIP falls back to podIPs', () => {
  assert.equal(
    fieldGetterFor('nodes', { spec: { unschedulable: true } })('spec.unschedulable'),
    'true',
  );
  assert.equal(fieldGetterFor('nodes', {})('spec.unschedulable'), 'false');
  const pod = {
    metadata: { name: 'p', namespace: 'ns' },
    spec: {
      nodeName: 'n1',
      hostNetwork: true,
      restartPolicy: 'Always',
      schedulerName: 's',
      serviceAccountName: 'sa',
    },
    status: { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }], nominatedNodeName: 'n2' },
  };
  const get = fieldGetterFor('pods', pod);
  assert.equal(get('spec.hostNetwork'), 'true');
  assert.equal(get('status.podIP'), '10.0.0.1');
  assert.equal(get('spec.nodeName'), 'n1');
  assert.equal(get('status.nominatedNodeName'), 'n2');
  assert.equal(fieldGetterFor('pods', {})('spec.hostNetwork'), 'false');
  assert.ok(parseFieldSelector('spec.nodeName=n1,status.phase!=Failed').matches(get));
  assert.equal(
    fieldGetterFor('namespaces', { status: { phase: 'Active' } })('status.phase'),
    'Active',
  );
});

test('SUPPORTED_FIELDS drives checkFieldsSupported', () => {
  checkFieldsSupported(
    parseFieldSelector('spec.signerName=x'),
    SUPPORTED_FIELDS.certificatesigningrequests,
  );
  assert.throws(
    () => checkFieldsSupported(parseFieldSelector('spec.unschedulable=x'), SUPPORTED_FIELDS.pods),
    /field label not supported: spec.unschedulable/,
  );
  for (const r of Object.values(SUPPORTED_FIELDS)) {
    assert.ok(r.has('metadata.name') && r.has('metadata.namespace'));
  }
});

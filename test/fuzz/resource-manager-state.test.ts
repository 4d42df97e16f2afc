// The CPU and memory managers' checkpoint files against hostile content: the corpus under
// test/fixtures/hostile-resource-manager-state and generated documents either restore or stop the
// start with the reference's "could not restore state from checkpoint" error naming the file
// (never another error, never a crash, never a set larger than the host); cpusets parse and print
// back to the same set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildResourceManagers } from '../../src/agent/cm/build.js';
import { CpuSet, CpuSetParseError } from '../../src/agent/cm/cpuset.js';
import { decodeCpuState } from '../../src/agent/cm/cpu-state.js';
import { decodeMemoryState } from '../../src/agent/cm/memory-state.js';
import { defaultConfiguration } from '../../src/agent/config/defaults.js';
import { ConfigError } from '../../src/common/util/errors.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';
import { fakeSysfs, gridLayout } from '../helpers/fake-sysfs.js';
import { recordingLogger } from '../helpers/recording-logger.js';

const CORPUS = join(process.cwd(), 'test', 'fixtures', 'hostile-resource-manager-state');

test('the hostile corpus stops the start with the reference restore error naming the state file', async (t) => {
  const fs = await fakeSysfs(gridLayout(2, 2, 2, 4 * 1024 ** 3));
  t.after(() => fs.cleanup());
  const files = (await readdir(CORPUS)).sort();
  assert.ok(files.length >= 15);
  for (const f of files) {
    const root = await mkdtemp(join(tmpdir(), 'na-cm-hostile-'));
    try {
      const cpu = f.startsWith('cpu-');
      const state = join(root, cpu ? 'cpu_manager_state' : 'memory_manager_state');
      await copyFile(join(CORPUS, f), state);
      const config = {
        ...defaultConfiguration('flags'),
        cpuManagerPolicy: cpu ? 'static' : 'none',
        reservedSystemCPUs: cpu ? '0' : '',
        memoryManagerPolicy: cpu ? 'None' : 'Static',
        reservedMemory: cpu ? [] : [{ numaNode: 0, limits: { memory: '100Mi' } }],
      };
      // rejects only once whatever the start wrote has landed, so the rm below cannot race it
      await assert.rejects(
        () =>
          buildResourceManagers({
            config,
            gateEnabled: () => true,
            rootDir: root,
            runtimeType: 'docker',
            logger: recordingLogger(),
            sysfsRoot: fs.root,
          }),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError, `${f}: ${String(e)}`);
          assert.match(
            e.message,
            /^start (cpu|memory) manager error: (could not restore state from checkpoint: .+, please drain this node and delete the (CPU|memory) manager checkpoint file ".+" before restarting Kubelet|pod: .+ overlaps with default cpuset ".*"|not all reserved cpus: ".*" are present in defaultCpuSet: ".*"|\[memorymanager\] .+)$/s,
            f,
          );
          assert.ok(e.message.length < 600, `${f}: the message stays short (${e.message.length})`);
          return true;
        },
        f,
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
});

const json = fc.jsonValue({ maxDepth: 4 });
const cpuDoc = fc.record(
  {
    policyName: fc.oneof(fc.constant('static'), fc.string({ maxLength: 8 })),
    defaultCpuSet: fc.oneof(
      fc.constantFrom('', '0-7', '1,3', '7-0', 'a', '0-8191'),
      fc.string({ maxLength: 12 }),
    ),
    entries: fc.oneof(
      json,
      fc.dictionary(
        fc.string({ maxLength: 6 }),
        fc.dictionary(
          fc.string({ maxLength: 4 }),
          fc.oneof(fc.constantFrom('1', '2-3', 'x'), fc.string({ maxLength: 6 })),
        ),
      ),
    ),
    checksum: fc.oneof(fc.constant(0), fc.integer(), json),
  },
  { requiredKeys: [] },
);

test('generated cpu_manager_state documents decode or fail with an Error; sets stay within the host', () => {
  fc.assert(
    fc.property(fc.oneof(cpuDoc, json), (doc) => {
      try {
        const s = decodeCpuState(doc, 'static', 7);
        assert.ok(s.defaultCpuSet.list().every((id) => id <= 7));
        for (const row of s.entries.values())
          for (const c of row.values()) assert.ok(c.list().every((id) => id <= 7));
      } catch (e) {
        assert.ok(e instanceof Error, String(e));
      }
    }),
    fuzzParams(300),
  );
});

test('generated memory_manager_state documents decode or fail with an Error', () => {
  const table = fc.record(
    { total: fc.oneof(fc.nat(), json), free: fc.oneof(fc.integer(), json) },
    { requiredKeys: [] },
  );
  const node = fc.record(
    {
      numberOfAssignments: fc.oneof(fc.nat(3), json),
      memoryMap: fc.oneof(
        json,
        fc.dictionary(fc.constantFrom('memory', 'hugepages-2Mi', 'x'), table),
      ),
      cells: fc.oneof(fc.array(fc.nat(3)), json),
    },
    { requiredKeys: [] },
  );
  const doc = fc.record(
    {
      policyName: fc.constantFrom('Static', 'None', ''),
      machineState: fc.oneof(
        json,
        fc.dictionary(fc.oneof(fc.constantFrom('0', '1'), fc.string({ maxLength: 4 })), node),
      ),
      entries: json,
      checksum: fc.oneof(fc.constant(0), json),
    },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(fc.oneof(doc, json), (d) => {
      try {
        decodeMemoryState(d, 'Static');
      } catch (e) {
        assert.ok(e instanceof Error, String(e));
      }
    }),
    fuzzParams(300),
  );
});

test('cpusets: any text parses or fails with CpuSetParseError; a set prints and parses back to itself', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 24 }), (text) => {
      try {
        CpuSet.parse(text);
      } catch (e) {
        assert.ok(e instanceof CpuSetParseError, String(e));
      }
    }),
    fuzzParams(500),
  );
  fc.assert(
    fc.property(fc.uniqueArray(fc.nat(300), { maxLength: 40 }), (ids) => {
      const s = new CpuSet(ids);
      assert.ok(CpuSet.parse(s.toString()).equals(s), s.toString());
    }),
    fuzzParams(300),
  );
});

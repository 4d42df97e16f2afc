// Container logs on a CRI runtime rotated the reference's way by the agent (a containerd of the
// test's own, test/helpers/containerd.ts): with containerLogMaxSize 2Ki, containerLogMaxFiles 3
// and containerLogMonitorInterval 3s, a running container's `0.log` is renamed
// `0.log.<YYYYMMDD-hhmmss>` and containerd reopens it (ReopenContainerLog); the rotated file before
// it is gzip'd, older ones removed. containerLogs reads across the rotated files: tail, since,
// limitBytes, follow across a rotation, previous. Skipped without containerd except under CI=true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startInProcessAgent, type InProcessAgent } from '../../../helpers/in-process-agent.js';
import { containerdSkipReason, startContainerd } from '../../../helpers/containerd.js';
import { waitFor } from './agent-harness.js';
import { RuntimeContainerLogs } from '../../../../src/agent/server/runtime-adapters.js';
import type { ContainerLogOptions } from '../../../../src/agent/server/types.js';
import { systemClock } from '../../../../src/common/util/clock.js';

const skip = (await containerdSkipReason()) ?? false;
const NODE = 'cri-rot';

/** Numbered lines of ~120 bytes, 20 a second: ~3 KiB/s with the CRI prefix; `exitAfter` lines, then exit 1. */
function writer(name: string, exitAfter?: number): Record<string, unknown> {
  const stop = exitAfter === undefined ? '' : `[ $i -ge ${exitAfter} ] && exit 1; `;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'w',
          image: 'busybox:local',
          command: [
            'sh',
            '-c',
            `i=0; while true; do i=$((i+1)); echo "line $i ${'x'.repeat(80)}"; ${stop}sleep 0.05; done`,
          ],
        },
      ],
    },
  };
}

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

const numbers = (text: string): number[] =>
  [...text.matchAll(/^(?:.* )?line (\d+) x+$/gm)].map((m) => Number(m[1]));

function consecutive(ns: readonly number[]): boolean {
  return ns.every((n, i) => i === 0 || n === (ns[i - 1] ?? 0) + 1);
}

async function logDir(a: InProcessAgent, pod: string): Promise<string> {
  const base = join(a.root, 'pod-logs');
  const dir = await waitFor(`the log directory of ${pod}`, async () =>
    (await readdir(base).catch(() => [] as string[])).find((d) =>
      d.startsWith(`default_${pod}-${NODE}_`),
    ),
  );
  return join(base, dir, 'w');
}

async function read(
  logs: RuntimeContainerLogs,
  pod: string,
  o: Partial<ContainerLogOptions> = {},
  signal = new AbortController().signal,
): Promise<string> {
  const out = new Collect();
  await logs.writeLogs(
    { namespace: 'default', pod: `${pod}-${NODE}`, container: 'w' },
    { follow: false, timestamps: false, ...o },
    out,
    signal,
  );
  return out.text;
}

test(
  'CRI container logs rotated by the agent (rename, ReopenContainerLog, gzip) and read across the rotated files',
  { skip, timeout: 170_000 },
  async (t) => {
    const ctd = await startContainerd();
    t.after(() => ctd.stop());
    const a = await startInProcessAgent(t, {
      prefix: 'na-cri-rot',
      config: {
        containerRuntimeEndpoint: ctd.endpoint,
        containerLogMaxSize: '2Ki',
        containerLogMaxFiles: 3,
        containerLogMonitorInterval: '3s',
      },
      flags: { hostnameOverride: NODE },
    });
    await writeFile(join(a.manifests, 'rot.json'), JSON.stringify(writer('rot')));
    await writeFile(join(a.manifests, 'once.json'), JSON.stringify(writer('once', 150)));
    const dir = await logDir(a, 'rot');
    const rotatedName = /^0\.log\.\d{8}-\d{6}$/;
    const gzName = /^0\.log\.\d{8}-\d{6}\.gz$/;
    const files = await waitFor(
      'a rotated 0.log and a gzip-compressed older one',
      async () => {
        const names = await readdir(dir);
        return names.some((n) => rotatedName.test(n)) && names.some((n) => gzName.test(n))
          ? names
          : undefined;
      },
      90_000,
      200,
    );
    assert.ok(files.includes('0.log'), `containerd reopened 0.log: ${files.join(' ')}`);
    assert.ok(files.length <= 3, `at most containerLogMaxFiles files: ${files.join(' ')}`);
    assert.ok(
      files.every((n) => n === '0.log' || rotatedName.test(n) || gzName.test(n)),
      files.join(' '),
    );

    const agent = a.agent();
    assert.ok(agent !== undefined);
    const logs = new RuntimeContainerLogs({
      runtime: agent.runtime.runtime,
      pods: agent.pods,
      clock: systemClock,
      followPollMs: 200,
    });
    // the current file first: a rotation may come between the two reads, never lose lines
    const inCurrent = await waitFor('lines in the current 0.log', async () => {
      const ns = numbers(await readFile(join(dir, '0.log'), 'utf8'));
      return ns.length > 0 ? ns : undefined;
    });
    const all = numbers(await read(logs, 'rot'));
    assert.ok(consecutive(all), 'no line lost or repeated across the rotated files');
    assert.ok(
      (all[0] ?? Infinity) < (inCurrent[0] ?? 0),
      `lines of the rotated files too: from ${all[0]}, the current file from ${inCurrent[0]}`,
    );
    assert.ok((all.at(-1) ?? 0) >= (inCurrent.at(-1) ?? Infinity), 'to the current file');
    const tail = numbers(await read(logs, 'rot', { tailLines: 50 }));
    assert.equal(tail.length, 50);
    assert.ok(consecutive(tail));
    const stamped = await read(logs, 'rot', { timestamps: true });
    const first = /^(\S+) line (\d+) /.exec(stamped.split('\n')[10] ?? '');
    assert.ok(first !== null, stamped.slice(0, 300));
    const since = numbers(await read(logs, 'rot', { sinceMs: Date.parse(first[1] ?? '') }));
    assert.ok((since[0] ?? 0) <= Number(first[2]) && since.includes(Number(first[2])));
    assert.equal((await read(logs, 'rot', { limitBytes: 1000 })).length, 1000);

    // follow across a rotation: every line once, in order, past the next rotated file
    const before = new Set(await readdir(dir));
    const ac = new AbortController();
    const out = new Collect();
    const following = logs.writeLogs(
      { namespace: 'default', pod: `rot-${NODE}`, container: 'w' },
      { follow: true, timestamps: false, tailLines: 1 },
      out,
      ac.signal,
    );
    await waitFor(
      'a rotation while following',
      async () => (await readdir(dir)).some((n) => rotatedName.test(n) && !before.has(n)),
      30_000,
      200,
    );
    const seenAtRotation = numbers(out.text).at(-1) ?? 0;
    await waitFor(
      'lines written after the rotation',
      () => {
        const ns = numbers(out.text);
        return (ns.at(-1) ?? 0) > seenAtRotation + 40;
      },
      30_000,
      200,
    );
    ac.abort();
    await following;
    const followed = numbers(out.text);
    assert.ok(consecutive(followed), `followed without gaps or repeats: ${followed.join(',')}`);

    // previous: the exited instance's log, its rotated files included
    const prev = await waitFor(
      'the first instance of once to have exited and been restarted',
      () => read(logs, 'once', { previous: true }).catch(() => undefined),
      90_000,
      500,
    );
    const prevNumbers = numbers(prev);
    assert.ok(consecutive(prevNumbers));
    assert.equal(prevNumbers.at(-1), 150, 'the previous instance to its last line');
    const onceDir = await logDir(a, 'once');
    const prevCurrent = numbers(await readFile(join(onceDir, '0.log'), 'utf8'));
    assert.ok(
      (await readdir(onceDir)).some((n) => rotatedName.test(n) || gzName.test(n)),
      'the first instance was rotated while it ran',
    );
    // the current file may be empty: a rotation can come just before the instance exits
    assert.ok(
      prevNumbers.length > prevCurrent.length &&
        (prevNumbers[0] ?? Infinity) < (prevCurrent[0] ?? Infinity),
      `its rotated files too: from ${prevNumbers[0]}, its current file from ${prevCurrent[0]}`,
    );
  },
);

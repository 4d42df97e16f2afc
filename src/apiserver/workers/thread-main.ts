// A worker thread of --worker-threads: it answers each job (messages.ts) by its id, and keeps the
// encryption keys its set-up messages give it. It holds no store, cache or connection.

import { parentPort } from 'node:worker_threads';
import { runDecodeJob } from './decode-job.js';
import { ThreadKeys } from './cipher-job.js';
import { runServedJob } from './served-job.js';
import { runFrameJob } from './frame-job.js';
import type { JobMessage, JobResult, ReplyMessage, Setup } from './messages.js';

const keys = new ThreadKeys();

async function answer(m: JobMessage): Promise<JobResult> {
  const job = m.job;
  if (job.kind === 'decode') return runDecodeJob(job);
  if (job.kind === 'served') return runServedJob(job);
  if (job.kind === 'frame') return runFrameJob(job);
  return keys.run(job);
}

function isSetup(m: JobMessage | Setup): m is Setup {
  return !('job' in m);
}

const port = parentPort;
if (port !== null) {
  port.on('message', (m: JobMessage | Setup) => {
    if (isSetup(m)) {
      keys.add(m);
      return;
    }
    void answer(m).then((result) => {
      const reply: ReplyMessage = { id: m.id, result };
      port.postMessage(reply);
    });
  });
}

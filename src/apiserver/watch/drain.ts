// Writes one chunk of a streamed response and, when the socket's buffer is full, waits until it
// drains (or the response closes), so a slow client holds back the writer instead of memory.

import type { ServerResponse } from 'node:http';

export async function writeDrained(res: ServerResponse, chunk: string | Buffer): Promise<void> {
  if (res.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

// /logs/: the node's log directory, read-only (a listing for directories, the bytes for files),
// as the reference's file server on /var/log. Paths never escape the directory.

import { createReadStream } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, normalize, sep } from 'node:path';
import { httpError, notFound, sendText } from './respond.js';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function serveLogDir(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  logDir: string,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    httpError(res, 405, 'Method Not Allowed');
    return;
  }
  let rel: string;
  try {
    rel = decodeURIComponent(path.slice('/logs/'.length));
  } catch {
    httpError(res, 400, 'invalid path');
    return;
  }
  const clean = normalize(`/${rel}`);
  if (clean.split(sep).includes('..') || rel.includes('\0')) {
    httpError(res, 400, 'invalid path');
    return;
  }
  const root = await realpath(logDir).catch(() => undefined);
  if (root === undefined) {
    notFound(res);
    return;
  }
  const target = join(root, clean);
  const st = await stat(target).catch(() => undefined);
  if (st === undefined) {
    notFound(res);
    return;
  }
  if (st.isDirectory()) {
    const entries = await readdir(target, { withFileTypes: true });
    const lines = entries
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort()
      .map((n) => `<a href="${escapeHtml(encodeURI(n))}">${escapeHtml(n)}</a>`);
    sendText(res, 200, `<pre>\n${lines.join('\n')}\n</pre>\n`, 'text/html; charset=utf-8');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': st.size });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await new Promise<void>((resolve) => {
    const stream = createReadStream(target);
    stream.on('error', () => {
      res.destroy();
      resolve();
    });
    stream.on('end', resolve);
    stream.pipe(res);
  });
}

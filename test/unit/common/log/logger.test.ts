import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, levelFor, type LogSink } from '../../../../src/common/log/logger.js';
import { renderTextLine, formatValue } from '../../../../src/common/log/text-format.js';
import { vmoduleVerbosity } from '../../../../src/common/log/vmodule.js';
import { loggerOptionsFromConfig } from '../../../../src/agent/config/logger-options.js';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';

class Sink implements LogSink {
  readonly lines: string[] = [];
  flushed = 0;
  write(chunk: string): void {
    this.lines.push(...chunk.split('\n').filter((l) => l !== ''));
  }
  flush(): void {
    this.flushed++;
  }
}

test('text format: severity letter, UTC time, component, message, key=value pairs', () => {
  const time = Date.UTC(2026, 10, 22, 9, 5, 7, 42);
  const line = renderTextLine({
    level: 40,
    time,
    component: 'config',
    msg: 'Dropped a field',
    file: '/etc/x y.yaml',
    line: 3,
    ok: true,
    obj: { a: 1 },
  });
  assert.equal(
    line,
    'W1122 09:05:07.042 config] Dropped a field file="/etc/x y.yaml" line=3 ok=true obj={"a":1}\n',
  );
  assert.equal(
    renderTextLine({
      level: 50,
      time,
      msg: 'two\nlines',
      err: { message: 'boom', stack: 'Error: boom\n at x' },
    }),
    'E1122 09:05:07.042 nodeagent] two\\nlines err=boom\n',
  );
  assert.equal(formatValue('a=b'), '"a=b"');
  assert.equal(formatValue('plain'), 'plain');
});

test('verbosity: 0-3 info, 4-5 debug, 6+ trace; V(n) records need verbosity n', () => {
  assert.equal(levelFor(0), 'info');
  assert.equal(levelFor(4), 'debug');
  assert.equal(levelFor(6), 'trace');
  const err = new Sink();
  const h = createLogger({ verbosity: 2, stderr: err });
  h.logger.info('shown');
  h.logger.debug('hidden');
  h.logger.info({ v: 2 }, 'v2 shown');
  h.logger.info({ v: 3 }, 'v3 hidden');
  h.logger.error({ code: 7 }, 'failed');
  h.close();
  assert.equal(err.lines.length, 3, err.lines.join('\n'));
  assert.match(err.lines[0] ?? '', /^I\d{4} [\d:.]+ nodeagent\] shown$/);
  assert.match(err.lines[1] ?? '', /\] v2 shown$/);
  assert.match(err.lines[2] ?? '', /^E\d{4} [\d:.]+ nodeagent\] failed code=7$/);
});

test('vmodule raises the verbosity of matching components only', () => {
  assert.equal(vmoduleVerbosity([{ filePattern: 'serv*', verbosity: 5 }], 'server'), 5);
  assert.equal(vmoduleVerbosity([{ filePattern: 'pod?', verbosity: 3 }], 'pods'), 3);
  assert.equal(vmoduleVerbosity([{ filePattern: 'pod?', verbosity: 3 }], 'podsx'), undefined);
  const err = new Sink();
  const h = createLogger({
    verbosity: 0,
    vmodule: [{ filePattern: 'server', verbosity: 4 }],
    stderr: err,
  });
  h.logger.child({ component: 'server' }).debug('server debug');
  h.logger.child({ component: 'worker' }).debug('worker debug');
  h.logger.child({ component: 'server' }).info({ v: 4 }, 'server v4');
  h.logger.child({ part: 'server' }).debug('part debug');
  h.close();
  assert.deepEqual(
    err.lines.map((l) => l.replace(/^\S+ \S+ /, '')),
    ['server] server debug', 'server] server v4', 'nodeagent] part debug part=server'],
  );
});

test('split stream: info to stdout, warnings and errors to stderr; flush on close', () => {
  const out = new Sink();
  const err = new Sink();
  const h = createLogger({ splitStream: true, stdout: out, stderr: err, flushFrequencyMs: 10 });
  h.logger.info('to stdout');
  h.logger.warn('to stderr');
  h.logger.error('also stderr');
  h.close();
  assert.equal(out.lines.length, 1);
  assert.match(out.lines[0] ?? '', /to stdout/);
  assert.equal(err.lines.length, 2);
  assert.ok(out.flushed >= 1 && err.flushed >= 1);
});

test('without split stream everything goes to stderr', () => {
  const out = new Sink();
  const err = new Sink();
  const h = createLogger({ stdout: out, stderr: err });
  h.logger.info('x');
  h.logger.error('y');
  h.close();
  assert.equal(out.lines.length, 0);
  assert.equal(err.lines.length, 2);
});

test('the flush timer flushes buffered output every --log-flush-frequency', async () => {
  const out = new Sink();
  const err = new Sink();
  const h = createLogger({ splitStream: true, stdout: out, stderr: err, flushFrequencyMs: 5 });
  const deadline = Date.now() + 5000;
  while (out.flushed < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  h.close();
  assert.ok(out.flushed >= 2, `flushed ${out.flushed} times`);
});

test('logger options come from the logging block of the configuration', () => {
  const c = defaultConfiguration('file');
  c.logging = {
    format: 'text',
    flushFrequency: '2s',
    verbosity: 3,
    vmodule: [{ filePattern: 'x', verbosity: 5 }],
    options: { text: { splitStream: true, infoBufferSize: '64Ki' } },
  };
  const o = loggerOptionsFromConfig(c);
  assert.equal(o.flushFrequencyMs, 2000);
  assert.equal(o.verbosity, 3);
  assert.equal(o.splitStream, true);
  assert.equal(o.infoBufferSize, 65536);
  assert.deepEqual(o.vmodule, [{ filePattern: 'x', verbosity: 5 }]);
});

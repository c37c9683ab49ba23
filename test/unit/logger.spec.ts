import { Writable } from 'node:stream';
import { createLogger, logContext, NestPinoLogger, redactUrl } from '../../src/common/logger';
import { PeriodicTask } from '../../src/common/periodic-task';
import { InProcessJobQueue } from '../../src/queue/in-process-job-queue';

function capture(): { lines: Record<string, unknown>[]; logger: NestPinoLogger } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: new NestPinoLogger(createLogger('info', sink)) };
}

describe('NestPinoLogger', () => {
  it('adds the id of the request being served to lines logged through Nest', async () => {
    const { lines, logger } = capture();
    await logContext.run({ reqId: 'req-7' }, async () => {
      await Promise.resolve();
      logger.warn('inside', 'SomeService');
    });
    logger.log('outside');
    expect(lines).toEqual([
      expect.objectContaining({ reqId: 'req-7', context: 'SomeService', msg: 'inside', level: 40 }),
      expect.not.objectContaining({ reqId: expect.anything() }),
    ]);
  });

  it('logs a job handed on during a request under the job id, not the request id', async () => {
    const { lines, logger } = capture();
    const queue = new InProcessJobQueue();
    let ran!: () => void;
    const done = new Promise<void>((resolve) => (ran = resolve));
    queue.register('media.download', {
      handle: async () => {
        await Promise.resolve();
        logger.log('downloaded', 'MediaDownloadProcessor');
        ran();
      },
    });
    await logContext.run({ reqId: 'req-8' }, async () => {
      logger.log('sent', 'MessagesService');
      await queue.add('media.download', { id: 'med-1', attempt: 2 });
    });
    await done;
    await queue.beforeApplicationShutdown();
    expect(lines).toEqual([
      expect.objectContaining({ reqId: 'req-8', msg: 'sent' }),
      expect.objectContaining({ jobId: 'media.download:med-1:2', msg: 'downloaded' }),
    ]);
    expect(lines[1].reqId).toBeUndefined();
  });

  it('logs the run of a periodic task woken during a request under the task, not the request id', async () => {
    const { lines, logger } = capture();
    let ran!: () => void;
    const done = new Promise<void>((resolve) => (ran = resolve));
    const task = new PeriodicTask({
      name: 'outbox-relay',
      run: async () => {
        logger.log('handed on', 'OutboxRelay');
        ran();
      },
      everyMs: () => 60_000,
      failed: () => undefined,
    });
    task.start(60_000);
    logContext.run({ reqId: 'req-9' }, () => task.wake());
    await done;
    await task.stop();
    expect(lines).toEqual([expect.objectContaining({ task: 'outbox-relay', msg: 'handed on' })]);
    expect(lines[0].reqId).toBeUndefined();
  });

  it('redacts secrets in logged objects', () => {
    const sinkLines: string[] = [];
    const pino = createLogger('info', new Writable({ write: (chunk: Buffer, _e, done) => (sinkLines.push(chunk.toString()), done()) }));
    pino.info(
      {
        password: 'hunter22',
        body: { secret: 's3cr3t' },
        config: { encryptionKey: 'k3y', encryptionKeysPrevious: ['0ldk3y'] },
        req: { method: 'GET', url: '/x?access_token=abc', id: '1', headers: {} },
      },
      'm',
    );
    expect(sinkLines.join('')).not.toMatch(/hunter22|s3cr3t|abc|k3y/);
    expect(sinkLines.map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({
        msg: 'm',
        password: '[redacted]',
        body: { secret: '[redacted]' },
        config: { encryptionKey: '[redacted]', encryptionKeysPrevious: '[redacted]' },
        req: expect.objectContaining({ url: '/x?access_token=[redacted]' }),
      }),
    ]);
  });
});

describe('redactUrl', () => {
  it('hides credential query parameters and keeps the rest', () => {
    expect(redactUrl('/api/v1/events/stream?access_token=eyJ.x.y&x=1')).toBe('/api/v1/events/stream?access_token=[redacted]&x=1');
    expect(redactUrl('/api/webhooks/messaging?hub.mode=subscribe&hub.verify_token=abc')).toBe(
      '/api/webhooks/messaging?hub.mode=subscribe&hub.verify_token=[redacted]',
    );
  });
});

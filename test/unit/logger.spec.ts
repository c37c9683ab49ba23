import { Writable } from 'node:stream';
import { createLogger, NestPinoLogger, redactUrl, requestContext } from '../../src/common/logger';

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
    await requestContext.run({ reqId: 'req-7' }, async () => {
      await Promise.resolve();
      logger.warn('inside', 'SomeService');
    });
    logger.log('outside');
    expect(lines).toEqual([
      expect.objectContaining({ reqId: 'req-7', context: 'SomeService', msg: 'inside', level: 40 }),
      expect.not.objectContaining({ reqId: expect.anything() }),
    ]);
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

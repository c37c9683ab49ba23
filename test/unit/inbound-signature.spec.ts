import { createHmac } from 'node:crypto';
import { loadConfig } from '../../src/config/app-config';
import { InboundService } from '../../src/inbound/inbound.service';

/** The signature check alone: it reads nothing but the configuration. */
function checkerFor(env: Record<string, string>): InboundService {
  const config = loadConfig(env, () => 'generated');
  return new (InboundService as unknown as new (...args: unknown[]) => InboundService)(
    ...Array(20)
      .fill(null)
      .map((_, i) => (i === 1 ? config : null)),
  );
}

const PRODUCTION = {
  NODE_ENV: 'production',
  APP_URL: 'https://inbox.example.com',
  SESSION_SECRET: 'x'.repeat(32),
  DATABASE_URL: 'postgres://db/x',
  ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
};
const BODY = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');

describe('the channel webhook signature check', () => {
  it('refuses every webhook in production without MESSAGING_APP_SECRET', () => {
    expect(() => checkerFor(PRODUCTION).verifySignature(BODY, undefined)).toThrow(
      'Channel webhooks are refused: MESSAGING_APP_SECRET is not set, and production verifies every webhook',
    );
  });

  it('takes a webhook signed with MESSAGING_APP_SECRET in production, and an unsigned one outside production', () => {
    const signed = `sha256=${createHmac('sha256', 'app-secret').update(BODY).digest('hex')}`;
    expect(() => checkerFor({ ...PRODUCTION, MESSAGING_APP_SECRET: 'app-secret' }).verifySignature(BODY, signed)).not.toThrow();
    expect(() => checkerFor({}).verifySignature(BODY, undefined)).not.toThrow();
  });
});

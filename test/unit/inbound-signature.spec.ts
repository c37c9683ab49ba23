import { createHmac } from 'node:crypto';
import { checkChannelSignature } from '../../src/inbound/webhook-signature';

const BODY = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
const signedWith = (key: string) => `sha256=${createHmac('sha256', key).update(BODY).digest('hex')}`;

describe('the channel webhook signature check', () => {
  it('refuses every webhook in production when a change has no app secret to check it with', () => {
    expect(() => checkChannelSignature(BODY, undefined, new Set([null]), true)).toThrow(
      'Channel webhooks are refused: neither the inbox nor MESSAGING_APP_SECRET has an app secret, and production verifies every webhook',
    );
  });

  it('takes a webhook signed with the app secret in production, and an unsigned one without a secret outside production', () => {
    expect(() => checkChannelSignature(BODY, signedWith('app-secret'), new Set(['app-secret']), true)).not.toThrow();
    expect(() => checkChannelSignature(BODY, undefined, new Set([null]), false)).not.toThrow();
  });

  it('refuses a signature made with another key than the inbox’s, and one missing', () => {
    expect(() => checkChannelSignature(BODY, signedWith('other-secret'), new Set(['app-secret']), false)).toThrow(
      'X-Hub-Signature-256 is missing or does not match the body',
    );
    expect(() => checkChannelSignature(BODY, undefined, new Set(['app-secret']), false)).toThrow('X-Hub-Signature-256 is missing');
  });

  it('needs the signature to verify with every inbox the body’s changes are for', () => {
    expect(() => checkChannelSignature(BODY, signedWith('sales-secret'), new Set(['sales-secret', 'support-secret']), false)).toThrow(
      'does not match',
    );
    expect(() => checkChannelSignature(BODY, signedWith('sales-secret'), new Set(['sales-secret', null]), false)).not.toThrow();
  });
});

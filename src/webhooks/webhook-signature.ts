import { createHmac } from 'node:crypto';

/**
 * The Standard Webhooks signature (https://www.standardwebhooks.com): `v1,` and the base64
 * HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the secret's UTF-8
 * bytes, so receivers can verify with any Standard Webhooks library (secret given as raw).
 */
export function signDelivery(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

import { signPath, verifySignedPath } from '../../src/auth/signed-urls';

const key = Buffer.alloc(32, 1);
const otherKey = Buffer.alloc(32, 2);
const path = '/api/v1/media/med_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b';
const now = Date.UTC(2026, 0, 1, 12, 0, 0);
const inAMinute = now / 1000 + 60;

function parts(url: string): { path: string; expires: string; signature: string } {
  const [signedPath, query] = url.split('?');
  const params = new URLSearchParams(query);
  return { path: signedPath, expires: params.get('expires')!, signature: params.get('signature')! };
}

describe('signed URLs', () => {
  it('signs the path with its expiry in unix seconds and a base64url signature', () => {
    expect(signPath(key, path, inAMinute)).toMatch(new RegExp(`^${path}\\?expires=${inAMinute}&signature=[A-Za-z0-9_-]{43}$`));
  });

  it('accepts its own signature before the expiry', () => {
    const signed = parts(signPath(key, path, inAMinute));
    expect(verifySignedPath(key, signed.path, signed.expires, signed.signature, now)).toBe('valid');
  });

  it('calls the same signature expired once the expiry has come', () => {
    const signed = parts(signPath(key, path, inAMinute));
    expect(verifySignedPath(key, signed.path, signed.expires, signed.signature, (inAMinute + 1) * 1000)).toBe('expired');
    expect(verifySignedPath(key, signed.path, signed.expires, signed.signature, inAMinute * 1000)).toBe('expired');
  });

  it('does not recognise another key, another path, another expiry or a tampered signature (told apart from a malformed one only to say "reload")', () => {
    const signed = parts(signPath(key, path, inAMinute));
    const valid = verifySignedPath(key, signed.path, signed.expires, signed.signature, now);
    expect(valid).toBe('valid');
    expect(verifySignedPath(otherKey, signed.path, signed.expires, signed.signature, now)).toBe('unrecognised');
    expect(verifySignedPath(key, `${path}x`, signed.expires, signed.signature, now)).toBe('unrecognised');
    expect(verifySignedPath(key, signed.path, String(inAMinute + 1), signed.signature, now)).toBe('unrecognised');
    const flipped = `${signed.signature.slice(0, -1)}${signed.signature.endsWith('A') ? 'B' : 'A'}`;
    expect(verifySignedPath(key, signed.path, signed.expires, flipped, now)).toBe('unrecognised');
  });

  it('refuses a signature made for further ahead than any URL lives (7 days)', () => {
    const farAway = now / 1000 + 8 * 86_400;
    const signed = parts(signPath(key, path, farAway));
    expect(verifySignedPath(key, signed.path, signed.expires, signed.signature, now)).toBe('invalid');
  });

  it.each([
    ['a missing expiry', undefined, 'x'],
    ['a missing signature', String(inAMinute), undefined],
    ['an expiry that is not a number', 'soon', 'x'],
    ['a repeated parameter', [String(inAMinute), String(inAMinute)], 'x'],
    ['a signature that is not base64url', String(inAMinute), '!!!!'],
  ])('refuses %s', (_, expires, signature) => {
    expect(verifySignedPath(key, path, expires, signature, now)).toBe('invalid');
  });

  it('refuses a signature that decodes the same but is written differently (padding)', () => {
    const signed = parts(signPath(key, path, inAMinute));
    expect(verifySignedPath(key, signed.path, signed.expires, `${signed.signature}=`, now)).toBe('invalid');
  });
});

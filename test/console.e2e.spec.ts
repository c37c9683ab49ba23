import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { builtConsoleDirectory } from '../src/console/serve-console';
import { startTestApp, TestApp } from './support/test-app';

/** The most compressed JavaScript the console's first load may fetch (the budget). */
const FIRST_LOAD_BUDGET = 250 * 1024;

// The console is built by the tests' global setup (test/support/global-setup.ts), as `npm run build` builds it.
describe('the agent console served at /', () => {
  let t: TestApp;
  const directory = builtConsoleDirectory();
  const indexHtml = () => readFileSync(join(directory, 'index.html'), 'utf8');
  const scriptOf = () => /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"><\/script>/.exec(indexHtml())?.[1];

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers its page at / with a strict Content-Security-Policy, revalidated on every load', async () => {
    const answer = await t.request('GET', '/');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-cache');
    expect(answer.text).toContain('<div id="app"></div>');
    const policy = String(answer.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self';");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toContain("default-src 'self'");
  });

  it('has no inline script or style in its page, which the policy would refuse', () => {
    const html = indexHtml();
    for (const tag of html.match(/<script[^>]*>/g) ?? []) expect(tag).toMatch(/ src="\/assets\//);
    expect(html).not.toMatch(/<style|style="/);
  });

  it.each([
    '/conversations/conv_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b',
    '/accept-invite?token=abc',
    '/reset-password?token=abc',
    '/admin/users',
  ])('answers its page for %s, where the page routes itself (the links of the e-mails land there)', async (path) => {
    const answer = await t.request('GET', path);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(indexHtml());
  });

  it('serves its hashed files cached for a year, compressed for browsers that take Brotli or gzip', async () => {
    const script = scriptOf();
    expect(script).toBeDefined();
    const plain = await t.request('GET', script!);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const brotli = await t.request('GET', script!, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(brotli.headers['content-encoding']).toBe('br');
    const gzip = await t.request('GET', script!, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const raw = await t.app.inject({ method: 'GET', url: script!, headers: { 'accept-encoding': 'gzip' } });
    expect(gunzipSync(raw.rawPayload).toString('utf8')).toBe(plain.text);
  });

  it('keeps the first load under 250 KB of compressed JavaScript', () => {
    const assets = join(directory, 'assets');
    const compressed = readdirSync(assets)
      .filter((file) => file.endsWith('.js.gz'))
      .reduce((total, file) => total + readFileSync(join(assets, file)).length, 0);
    expect(compressed).toBeGreaterThan(0);
    expect(compressed).toBeLessThan(FIRST_LOAD_BUDGET);
  });

  it('answers the API 404 for unknown paths under /api and a missing file, not its page', async () => {
    const api = await t.request('GET', '/api/v1/nothing-here');
    expect(api.status).toBe(404);
    expect(api.body).toEqual({ error: 'Cannot GET /api/v1/nothing-here' });
    const file = await t.request('GET', '/assets/missing-0000.js');
    expect(file.status).toBe(404);
    expect(file.body).toEqual({ error: 'Cannot GET /assets/missing-0000.js' });
    const outside = await t.request('GET', '/assets/..%2f..%2fpackage.json');
    expect(outside.status).toBe(404);
  });

  it('leaves the API as it was: JSON under /api, with its own answers', async () => {
    const health = await t.request('GET', '/api/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
  });
});

import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page, type Request } from 'playwright-core';
import { CHROMIUM_PATH, HAS_CHROMIUM } from './chromium';
import type { TestApp } from './test-app';

/** The browser specs run where Chromium is; elsewhere they are skipped, and the run says so (global-setup.ts). */
export const describeWithBrowser = HAS_CHROMIUM ? describe : describe.skip;

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 360, height: 740 };

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    // The machine has no network but loopback: Chromium's own background connections are turned off.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Makes the app listen on loopback (it is built for `inject`) and answers its base URL. */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.getHttpServer().address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

/**
 * A browser page that fails its test on any error the page reports: an exception, a refused
 * resource or a Content-Security-Policy violation.
 */
export async function newPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return { page, problems };
}

/**
 * Opens `url` and waits for `ready`; when that does not come, the failure names the requests the
 * page still waited for and what its console said, so that a page that hangs says where.
 */
export async function openWhenReady(page: Page, url: string, ready: (page: Page) => Promise<void>): Promise<void> {
  const started = Date.now();
  const unanswered = new Map<Request, string>();
  const said: string[] = [];
  const onRequest = (request: Request) =>
    unanswered.set(request, `${request.method()} ${request.url().split('?')[0]} (at ${Date.now() - started} ms)`);
  const onAnswered = (request: Request) => unanswered.delete(request);
  const onConsole = (message: ConsoleMessage) => said.push(`${message.type()}: ${message.text()} (at ${Date.now() - started} ms)`);
  page.on('request', onRequest);
  page.on('requestfinished', onAnswered);
  page.on('requestfailed', onAnswered);
  page.on('console', onConsole);
  try {
    await page.goto(url);
    await ready(page);
  } catch (error) {
    const waitedFor = [...unanswered.values()].join('; ') || 'none';
    throw new Error(
      `${url} not ready after ${Date.now() - started} ms: ${(error as Error).message}\nunanswered requests: ${waitedFor}\nconsole: ${said.join('; ') || 'nothing'}`,
    );
  } finally {
    page.off('request', onRequest);
    page.off('requestfinished', onAnswered);
    page.off('requestfailed', onAnswered);
    page.off('console', onConsole);
  }
}

export async function logIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: /^Notifications/ }).waitFor();
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's WCAG 2 A and AA rules on the page as it is: the serious and critical violations,
 * one line each. The script is evaluated through the DevTools protocol, which the page's CSP
 * does not govern, so the page keeps its real policy.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    // Runs in the page; the tests' TypeScript has no DOM types.
    const scope = globalThis as unknown as {
      axe: { run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }> };
      document: unknown;
    };
    const result = await scope.axe.run(scope.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

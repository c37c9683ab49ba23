import { existsSync } from 'node:fs';
import { chromium, type Page } from 'playwright-core';
import type { Cleanup } from './cleanup';
import { printGoal } from './report';
import { describeSize, type SeedSize } from './seed-sql';

const CHROMIUM = '/usr/bin/chromium';
const LOADS = 10;
/** What "10,000 loaded conversations scroll smoothly" is measured on. */
const LOADED_CONVERSATIONS = 10_000;
const SCROLL_MS = 3000;
const SMOOTH_FRAME_MS = 50;

export interface ConsoleContext {
  serviceUrl: string;
  token: string;
  size: SeedSize;
  cleanup: Cleanup;
}

/**
 * Installed before the console's scripts run (through the DevTools protocol, which the page's CSP
 * does not govern): the session the console reads from local storage, and the moment the first
 * conversation row is added to the page, in ms since the navigation started. In-page code is
 * text here: the scripts' TypeScript has no DOM types.
 */
function instrument(session: string): string {
  return `localStorage.setItem('team-inbox.session', ${JSON.stringify(session)});
new MutationObserver((records, observer) => {
  if (document.querySelector('.conversation-row')) {
    window.firstRowAt = performance.now();
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });`;
}

/** When each step of the first render ended, in ms since the navigation started (Resource Timing). */
const STAGES = `(() => {
  const navigation = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource');
  const end = (part) => resources.find((r) => r.name.includes(part))?.responseEnd ?? null;
  return {
    html: navigation.responseEnd,
    script: end('/assets/index-'),
    scriptRun: navigation.domContentLoadedEventEnd,
    me: end('/api/v1/me'),
    list: end('/api/v1/conversations?'),
    firstRow: window.firstRowAt,
  };
})()`;

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

/**
 * The console in Chromium against the seeded database: the time from navigation to the first
 * conversation row of the inbox (a signed-in reload), next to the reference measured in the same
 * run, the API requests that first render waits for, made from Node; then the frames while
 * scrolling 10,000 loaded conversations, next to the same with the first page only.
 */
export async function benchConsole(context: ConsoleContext): Promise<void> {
  console.log(`\n--- the agent console in Chromium, ${describeSize(context.size)} ---`);
  if (!existsSync(CHROMIUM)) {
    console.log(`skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
    return;
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
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
  context.cleanup.defer('Chromium', () => browser.close());
  // A returning user's session, as the console keeps it: the token and the user as last seen.
  const me: unknown = await fetch(`${context.serviceUrl}/api/v1/me`, { headers: { authorization: `Bearer ${context.token}` } }).then((r) =>
    r.json(),
  );
  const session = JSON.stringify({ token: context.token, expires_at: new Date(Date.now() + 3_600_000).toISOString(), me });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript({ content: instrument(session) });

  // The reference: what the first render waits for, asked from Node in the order the page asks.
  const auth = { authorization: `Bearer ${context.token}` };
  const api = (path: string) => fetch(`${context.serviceUrl}${path}`, { headers: auth }).then((r) => r.arrayBuffer());
  const apiTimes: number[] = [];
  const renderTimes: number[] = [];
  const stageTimes: Record<string, number[]> = {};
  for (let round = 0; round < LOADS + 1; round += 1) {
    const started = performance.now();
    await api('/api/v1/me');
    await Promise.all([api('/api/v1/conversations?status=open&limit=100'), api('/api/v1/conversations/counts')]);
    const apiMs = performance.now() - started;

    await page.goto(`${context.serviceUrl}/`, { waitUntil: 'commit' });
    await page.locator('.conversation-row').first().waitFor({ timeout: 60_000 });
    const stages = (await page.evaluate(STAGES)) as Record<string, number | null>;
    // The first round warms the browser's cache and the database's: not counted.
    if (round === 0) continue;
    apiTimes.push(apiMs);
    renderTimes.push(stages.firstRow ?? 0);
    for (const [stage, at] of Object.entries(stages)) if (at !== null) (stageTimes[stage] ??= []).push(at);
  }
  console.log(`first render of the inbox (navigation to the first row), ${LOADS} reloads signed in:`);
  console.log(
    `  console in Chromium      p50 ${percentile(renderTimes, 0.5).toFixed(0)} ms, max ${Math.max(...renderTimes).toFixed(0)} ms`,
  );
  console.log(
    `  where the time goes (p50, ms since navigation): ${Object.entries(stageTimes)
      .map(([stage, times]) => `${stage} ${percentile(times, 0.5).toFixed(0)}`)
      .join(', ')}`,
  );
  console.log(
    `  reference: its API calls from Node (me, then list + counts)  p50 ${percentile(apiTimes, 0.5).toFixed(0)} ms, max ${Math.max(...apiTimes).toFixed(0)} ms`,
  );

  const firstPage = await scrollFrames(page);
  const loaded = await loadConversations(page, LOADED_CONVERSATIONS);
  const full = await scrollFrames(page);
  console.log(`scrolling for ${SCROLL_MS / 1000} s, 400 px a frame (frame times):`);
  console.log(`  ${loaded.toLocaleString('en')} conversations loaded  ${describeFrames(full)}`);
  console.log(`  reference: the first page (100)  ${describeFrames(firstPage)}`);
  console.log(`  rows in the page while ${loaded.toLocaleString('en')} are loaded: ${await page.locator('.conversation-row').count()}`);
  printGoal(
    `frames over ${SMOOTH_FRAME_MS} ms while scrolling ${loaded.toLocaleString('en')}`,
    full.filter((f) => f > SMOOTH_FRAME_MS).length,
    'frames',
    {
      below: 1,
    },
  );
  await browser.close();
}

function describeFrames(frames: number[]): string {
  return `${frames.length} frames, p50 ${percentile(frames, 0.5).toFixed(1)} ms, p95 ${percentile(frames, 0.95).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms`;
}

const CANVAS_HEIGHT = "document.querySelector('.virtual-canvas').offsetHeight";

/**
 * Scrolls the list until `count` conversations are loaded (the console asks for 100 at a time near
 * the end); stops early when a scroll brings nothing more within 10 s. The wait runs in the page
 * (Playwright's waitForFunction evaluates its predicate in a way the page's CSP refuses).
 */
async function loadConversations(page: Page, count: number): Promise<number> {
  const rowHeight = 76;
  for (;;) {
    const height = (await page.evaluate(
      `(() => { const v = document.querySelector('.virtual-viewport'); v.scrollTop = v.scrollHeight; return ${CANVAS_HEIGHT}; })()`,
    )) as number;
    if (height / rowHeight >= count) return Math.round(height / rowHeight);
    const grew = (await page.evaluate(`new Promise((resolve) => {
      const started = performance.now();
      const check = () => {
        if (${CANVAS_HEIGHT} > ${height}) resolve(true);
        else if (performance.now() - started > 10000) resolve(false);
        else requestAnimationFrame(check);
      };
      check();
    })`)) as boolean;
    if (!grew) return Math.round(height / rowHeight);
  }
}

/** The time of each frame while the list scrolls 400 px a frame, from its top, for SCROLL_MS. */
async function scrollFrames(page: Page): Promise<number[]> {
  return (await page.evaluate(`new Promise((resolve) => {
    const viewport = document.querySelector('.virtual-viewport');
    viewport.scrollTop = 0;
    const frames = [];
    const started = performance.now();
    let last = started;
    const step = (now) => {
      frames.push(now - last);
      last = now;
      viewport.scrollTop = viewport.scrollTop + 400 >= viewport.scrollHeight - viewport.clientHeight ? 0 : viewport.scrollTop + 400;
      if (now - started < ${SCROLL_MS}) requestAnimationFrame(step);
      else resolve(frames.slice(1));
    };
    requestAnimationFrame(step);
  })`)) as number[];
}

import autocannon from 'autocannon';

/** The figures compared across cases; latencies in milliseconds. */
export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Connection errors and timeouts: failures that never produced a status, so non2xx misses them. */
  errors: number;
  /** 2xx answers in the measured run, and how long it lasted: a rate of successes, not of answers. */
  ok: number;
  seconds: number;
}

export interface Load {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface Target {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /**
   * Built per request instead of one fixed request (autocannon's `setupRequest`), with
   * `onResponse` to see each answer: for bodies that must differ every time, like messages
   * with unique ids. Also called during the warm-up.
   */
  requests?: autocannon.Request[];
}

/**
 * Loads `target` with autocannon: a discarded warm-up run first (V8 optimises the hot paths,
 * pools and caches fill), then the measured run, so both cases are compared in their steady state.
 */
export async function measure(target: Target, load: Load): Promise<Figures> {
  const options = {
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers,
    body: target.body,
    requests: target.requests,
    connections: load.connections,
  };
  if (load.warmupSeconds > 0) await autocannon({ ...options, duration: load.warmupSeconds });
  const result = await autocannon({ ...options, duration: load.durationSeconds });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    ok: result['2xx'],
    seconds: result.duration,
  };
}

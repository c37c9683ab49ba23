import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../src/config/app-config';
import { startTestApp, TestApp } from './support/test-app';

const ROOT = join(__dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface AlertRule {
  alert: string;
  expr: string;
  labels: { severity: string; target?: string };
  annotations: { summary: string };
}

/** The seed's performance targets: each needs a warning and a critical rule at exactly these comparisons. */
const SEED_LEVELS: Record<string, { warning: string; critical: string }> = {
  api_response_time: { warning: '> 0.5', critical: '> 1' },
  webhook_processing: { warning: '> 5', critical: '> 10' },
  message_delivery: { warning: '> 10', critical: '> 30' },
  database_query_time: { warning: '> 0.5', critical: '> 1' },
  cpu_usage: { warning: '> 0.7', critical: '> 0.9' },
  memory_usage: { warning: '> 0.8', critical: '> 0.95' },
  error_rate: { warning: '> 0.01', critical: '> 0.05' },
  uptime: { warning: '< 0.99', critical: '< 0.95' },
};

/** The series names a PromQL expression reads, among the service's families and Prometheus's `up`. */
function seriesIn(expr: string): string[] {
  return [...expr.matchAll(/\b(team_inbox_\w+|process_\w+|nodejs_\w+|up)\b(?=\s*[{[)]|\s*$|\s)/g)].map((m) => m[1]);
}

function alertRules(): AlertRule[] {
  const document = parse(read('deploy/prometheus/alerts.yml')) as { groups: { name: string; rules: AlertRule[] }[] };
  return document.groups.flatMap((group) => group.rules);
}

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(read('deploy/grafana/team-inbox.json')) as { panels: { targets?: { expr: string }[] }[] };
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
}

describe('the deployment kit', () => {
  let t: TestApp;
  /** Every series name the service exports, histograms with their _bucket, _sum and _count. */
  let exported: Set<string>;

  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN: 'deploy-kit-metrics-token-0123' } });
    await t.adminToken();
    const text = (await t.request('GET', '/metrics', { headers: { authorization: 'Bearer deploy-kit-metrics-token-0123' } })).text;
    exported = new Set(['up']);
    for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      exported.add(name);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) exported.add(name + suffix);
    }
  });
  afterAll(() => t.close());

  describe('Prometheus rules (deploy/prometheus/alerts.yml)', () => {
    it.each(Object.entries(SEED_LEVELS))('alerts on %s at its warning and critical levels', (target, levels) => {
      const rules = alertRules().filter((rule) => rule.labels.target === target);
      for (const severity of ['warning', 'critical'] as const) {
        const matching = rules.filter((rule) => rule.labels.severity === severity);
        expect(matching).toHaveLength(1);
        expect(matching[0].expr.replace(/\s+/g, ' ').trim().endsWith(levels[severity])).toBe(true);
        expect(matching[0].annotations.summary).toBeTruthy();
      }
    });

    it('reads only series the service exports', () => {
      const named = alertRules().flatMap((rule) => seriesIn(rule.expr));
      expect(named.length).toBeGreaterThan(16);
      expect(named.filter((name) => !exported.has(name))).toEqual([]);
    });

    const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((path) => existsSync(path));
    (promtool ? it : it.skip)(`passes promtool check rules${promtool ? '' : ' (skipped: promtool is not installed)'}`, () => {
      const output = execFileSync(promtool!, ['check', 'rules', join(ROOT, 'deploy/prometheus/alerts.yml')], { encoding: 'utf8' });
      expect(output).toContain('SUCCESS');
    });
  });

  describe('Grafana dashboard (deploy/grafana/team-inbox.json)', () => {
    it('shows every target of the seed and reads only series the service exports', () => {
      const expressions = dashboardExpressions();
      const named = expressions.flatMap(seriesIn);
      expect(named.filter((name) => !exported.has(name))).toEqual([]);
      for (const series of [
        'team_inbox_http_request_duration_seconds_bucket',
        'team_inbox_channel_webhook_duration_seconds_bucket',
        'team_inbox_message_delivery_seconds_bucket',
        'team_inbox_db_query_duration_seconds_bucket',
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
        'team_inbox_http_request_duration_seconds_count',
        'up',
        'team_inbox_queue_depth',
        'team_inbox_outbox_lag_seconds',
        'team_inbox_db_pool_connections',
      ]) {
        expect(named).toContain(series);
      }
    });
  });

  describe('Kubernetes manifests (deploy/kubernetes)', () => {
    const MODELS: Record<string, new (data: never) => { validate(): void }> = {
      'apps/v1/Deployment': Deployment,
      'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
      'batch/v1/Job': Job,
      'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
      'v1/ConfigMap': ConfigMap,
      'v1/Secret': Secret,
      'v1/Service': Service,
    };
    const manifests = readdirSync(join(ROOT, 'deploy/kubernetes')).filter(
      (file) => file.endsWith('.yaml') && file !== 'kustomization.yaml',
    );
    const documents = (file: string) =>
      parseAllDocuments(read(`deploy/kubernetes/${file}`)).map((document) => document.toJS() as { apiVersion: string; kind: string });

    it.each(manifests)('validates %s against the Kubernetes schemas', (file) => {
      for (const document of documents(file)) {
        const Model = MODELS[`${document.apiVersion}/${document.kind}`];
        expect(Model).toBeDefined();
        expect(() => new Model(document as never).validate()).not.toThrow();
      }
    });

    it('catches a manifest of the wrong shape (the check can fail)', () => {
      const [deployment] = documents('deployment.yaml') as unknown as { spec: { replicas: unknown } }[];
      deployment.spec.replicas = 'two';
      expect(() => new Deployment(deployment as never).validate()).toThrow(/replicas/);
    });

    it('runs two replicas with liveness on /api/health and readiness on /api/health/ready, and a migration Job', () => {
      const [deployment] = documents('deployment.yaml') as unknown as {
        spec: { replicas: number; template: { spec: { containers: Record<string, { httpGet: { path: string } }>[] } } };
      }[];
      expect(deployment.spec.replicas).toBe(2);
      const [container] = deployment.spec.template.spec.containers;
      expect(container.livenessProbe.httpGet.path).toBe('/api/health');
      expect(container.readinessProbe.httpGet.path).toBe('/api/health/ready');
      const [job] = documents('migration-job.yaml') as unknown as {
        spec: { template: { spec: { containers: { command: string[] }[] } } };
      }[];
      expect(job.spec.template.spec.containers[0].command).toEqual(['node', 'dist/src/main.js', 'migrate']);
    });

    it('trusts X-Forwarded-For from a proxy network only, a setting production takes', () => {
      const [configMap] = documents('configmap.yaml') as unknown as { data: Record<string, string> }[];
      const production = {
        SESSION_SECRET: 'x'.repeat(32),
        DATABASE_URL: 'postgres://db/x',
        ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      };
      const config = loadConfig({ ...configMap.data, ...production }, () => 'unused');
      expect(config.trustProxy).toEqual([expect.stringMatching(/^[\d.]+\/\d+$/)]);
    });

    it('lists every manifest in the kustomization but the Secret template', () => {
      const kustomization = parse(read('deploy/kubernetes/kustomization.yaml')) as { resources: string[] };
      expect([...kustomization.resources].sort()).toEqual(manifests.filter((file) => file !== 'secret.example.yaml').sort());
    });
  });

  describe('docker-compose.yml', () => {
    it('runs two replicas on one PostgreSQL, Redis and S3 store behind the proxy, after a migration run', () => {
      const compose = parse(read('docker-compose.yml'), { merge: true }) as {
        services: Record<
          string,
          { environment?: Record<string, string>; command?: string[]; depends_on?: Record<string, unknown> | string[] }
        >;
      };
      const [first, second] = [compose.services['app-1'], compose.services['app-2']];
      for (const name of ['DATABASE_URL', 'REDIS_URL', 'MEDIA_STORE', 'S3_ENDPOINT', 'S3_BUCKET', 'SESSION_SECRET', 'ENCRYPTION_KEY']) {
        expect(first.environment?.[name]).toBeTruthy();
        expect(second.environment?.[name]).toBe(first.environment?.[name]);
      }
      expect(first.environment?.MEDIA_STORE).toBe('s3');
      expect(compose.services.migrate.command).toEqual(['node', 'dist/src/main.js', 'migrate']);
      expect(first.depends_on).toMatchObject({ migrate: { condition: 'service_completed_successfully' } });
      expect(compose.services.proxy.depends_on).toEqual(['app-1', 'app-2']);
      const proxy = read('deploy/proxy/nginx.conf');
      expect(proxy).toMatch(/server app-1:3000/);
      expect(proxy).toMatch(/server app-2:3000/);
    });
  });
});

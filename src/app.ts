import multipart from '@fastify/multipart';
import { type FastifyError, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { BadRequestException, type RawBodyRequest, UnsupportedMediaTypeException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { EVENT_PAYLOAD_SCHEMAS } from './event-payload-schemas';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { AppModule } from './app.module';
import { AuthGuard } from './auth/auth.guard';
import { ErrorFilter } from './common/error.filter';
import { registerCsvBodyParser } from './common/csv-body';
import { securityHeaders } from './common/security-headers';
import { builtConsoleDirectory, serveConsole } from './console/serve-console';
import { answerClientError, fastifyRefusal, MAX_PATH_SEGMENT_LENGTH } from './common/framework-refusals';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './common/json-depth';
import { logContext, NestPinoLogger } from './common/logger';
import { requestContext } from './common/request-context';
import { RequestValidationPipe } from './common/validation.pipe';
import { AppConfig } from './config/app-config';
import { withDevelopmentSecrets } from './database/development-secrets';
import { isDatabaseUnavailable } from './database/errors';
import { Metrics } from './metrics/metrics';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';

const API_BODY_LIMIT = 1024 * 1024;
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Builds the whole HTTP application, ready to `listen` (main.ts) or to `inject` (tests): one
 * composition for both, so the tests exercise exactly what runs in production.
 */
export async function createApp(settings: AppConfig, logger: Logger): Promise<NestFastifyApplication> {
  const config = await withDevelopmentSecrets(settings, (message) => logger.warn(message));
  // Scripts and styles from the service's own files only: the console has no inline script or
  // style. Swagger UI's page (/api/docs) has inline styles, so its answers allow them.
  const directives = { 'default-src': ["'self'"], 'img-src': ["'self'", 'data:'], 'script-src': ["'self'"] };
  const headers = securityHeaders({ contentSecurityPolicy: { directives: { ...directives, 'style-src': ["'self'"] } } });
  const docsHeaders = securityHeaders({
    contentSecurityPolicy: { directives: { ...directives, 'style-src': ["'self'", "'unsafe-inline'"] } },
  });
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: API_BODY_LIMIT,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    genReqId: (request: IncomingMessage) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT_LENGTH },
    // The router refuses a URL it cannot decode (400) or a path segment over maxParamLength (414)
    // before any hook, filter or Nest handler runs: answered here in the API's shape. Fastify's
    // default body names its FST_ code.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const { status, message } = fastifyRefusal(error) ?? { status: 500, message: 'Internal server error' };
      if (status >= 500) request.log.error({ err: error }, 'request failed');
      void reply
        .code(status)
        .headers(headers)
        .header('x-request-id', request.id)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify({ error: message }));
    },
    // Node's parser refuses oversized headers (431), malformed requests (400) and slow ones (408)
    // before Fastify has a request at all.
    clientErrorHandler: answerClientError,
  });
  // Nest's parsers would also accept form bodies; the API takes JSON only, with Fastify's own parser.
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: new NestPinoLogger(logger),
    abortOnError: false,
    bodyParser: false,
  });

  const fastify = app.getHttpAdapter().getInstance();
  // Anything but JSON is a 415, not a string the validators would see. JSON is parsed by Fastify's
  // own parser (with its prototype-poisoning guards), keeping the raw bytes: the channel webhook's
  // signature is computed over them. A body nested deeper than MAX_JSON_DEPTH is refused before it
  // is parsed: the code that walks a parsed body recurses, and would overflow the stack (a 500).
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser(['text/plain', 'application/json']);
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    (request as RawBodyRequest<FastifyRequest>).rawBody = body;
    // JSON is UTF-8 (RFC 8259): a body declared in another charset would be read wrong, not refused.
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(new UnsupportedMediaTypeException(`JSON bodies are UTF-8: charset=${charset} is not taken`), undefined);
      return;
    }
    const text = body.toString('utf8');
    if (nestsDeeperThan(text)) {
      done(new BadRequestException(`Body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    void parseJson(request, text, done);
  });
  // The one exception: the routes marked to take CSV (the contact import) read it as a stream.
  registerCsvBodyParser(fastify);
  // Multipart bodies (uploads) stream to the route that reads them, and only routes marked with
  // MULTIPART_ROUTE take them: every other route answers one as it answers any body but JSON.
  await fastify.register(multipart, { throwFileSizeLimit: true });
  fastify.addHook('preValidation', (request, _reply, done) => {
    if (request.isMultipart() && !(request.routeOptions.config as { multipart?: boolean }).multipart) {
      done(new UnsupportedMediaTypeException('Content-Type must be application/json'));
      return;
    }
    done();
  });
  // The agent console, at / (the API stays under /api).
  await serveConsole(fastify, builtConsoleDirectory());
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.headers(request.url.startsWith('/api/docs') ? docsHeaders : headers).header('x-request-id', request.id);
    logContext.run({ reqId: request.id }, () => requestContext.run({ ip: request.ip, actor: null }, done));
  });
  // Answers finished while closing end their keep-alive connection: the server only closes
  // connections idle when close() starts, and would otherwise wait out the keep-alive timeout.
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
  const metrics = app.get(Metrics);
  // The completion line holds only what the req serializer keeps (method, URL with credentials
  // redacted, id), the status and the time: nothing for the redaction paths to find, so it skips
  // them (half the cost of the line, measured: 5.0 -> 2.4 us).
  const accessLog = logger.child({}, { redact: { paths: [] } });
  fastify.addHook('onResponse', (request, reply, done) => {
    accessLog.info({ reqId: request.id, req: request, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request completed');
    // The route's pattern, never the URL, so the series stay as many as the routes.
    metrics.httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    done();
  });

  if (config.corsOrigins.length > 0) {
    app.enableCors({
      origin: config.corsOrigins,
      exposedHeaders: ['x-request-id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
    });
  }

  // Prometheus scrapes /metrics, the one path outside the API's prefix.
  app.setGlobalPrefix('api', { exclude: ['metrics'] });
  app.useGlobalFilters(new ErrorFilter([{ name: 'Database', isUnavailable: isDatabaseUnavailable }]));
  app.useGlobalPipes(new RequestValidationPipe());
  // Order matters: the rate limit counts every request, including those the auth guard refuses.
  app.useGlobalGuards(app.get(RateLimitGuard), app.get(AuthGuard));
  app.enableShutdownHooks();

  const document = SwaggerModule.createDocument(app, openApiDescription(), { extraModels: Object.values(EVENT_PAYLOAD_SCHEMAS) });
  // Which schema each event type's `data` is: the console's event types are generated from it (scripts/api-types.ts).
  Object.assign(document, {
    'x-event-payloads': Object.fromEntries(
      Object.entries(EVENT_PAYLOAD_SCHEMAS).map(([type, schema]) => [type, { $ref: `#/components/schemas/${schema.name}` }]),
    ),
  });
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });

  await app.init();
  return app;
}

function openApiDescription() {
  return (
    new DocumentBuilder()
      .setTitle('Team Inbox API')
      .setVersion('1')
      .setDescription(
        [
          'A shared inbox for support teams on the WhatsApp Business Cloud API.',
          '',
          '- JSON in and out; timestamps are ISO 8601 UTC. Ids are opaque strings with a type prefix (`user_`, `conv_`, …); an unknown id or one with the wrong prefix is a 404.',
          '- Authenticate with `POST /api/v1/auth/login`, then send `Authorization: Bearer <token>`. Invited users join with `POST /api/v1/auth/accept-invite` and the token of their e-mailed link; a forgotten password is reset with `POST /api/v1/auth/forgot-password` then `POST /api/v1/auth/reset-password`.',
          '- Links e-mailed or answered (invitations, resets, notification e-mails) start with APP_URL: `<APP_URL>/accept-invite?token=…`, `<APP_URL>/reset-password?token=…`, `<APP_URL>/conversations/conv_…`.',
          '- Lists answer `{"data": [...], "next_cursor": "…" | null}` and take `limit` (1-100, default 25) and `cursor`.',
          '- Every refusal answers `{"error": "<sentence>"}` with the status of its cause.',
          '- Rate limit: RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_MS per user (per IP without a token); every answer carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset, a 429 also Retry-After (seconds).',
        ].join('\n'),
      )
      .addBearerAuth()
      // The order Swagger shows them in: how to get a token first, operators' endpoints last.
      .addTag('Authentication', 'Log in, log out, invitations and password resets')
      .addTag('Inboxes', 'The WhatsApp numbers of the business, each an inbox of conversations')
      .addTag('Conversations', 'The inbox: conversations, their messages, notes, reads and sends')
      .addTag('Contacts', 'The contact book: contacts, attributes, merging, blocking, CSV import and export')
      .addTag('Media', 'Uploads to send, and the media of messages')
      .addTag('Templates', "The channel's message templates")
      .addTag('Canned responses', "The team's saved replies")
      .addTag('Labels', 'Labels for conversations')
      .addTag('Teams', 'Teams of agents, and the inboxes they work')
      .addTag('Assignment', 'Who takes which conversation: the queue and every agent’s load')
      .addTag('Automation', 'Rules that act on events by themselves, and macros agents run on a conversation')
      .addTag('Campaigns', 'Templates sent to an audience of contacts, paced, with each recipient’s outcome')
      .addTag('Notifications', "The caller's notifications")
      .addTag('Reports', 'Figures over a period: what the channel charged')
      .addTag('Users', 'The team, and one’s own profile')
      .addTag('Two-factor login', 'TOTP enrolment, recovery codes, and an admin’s reset')
      .addTag('API tokens', 'Bearer tokens for integrations, acting as their owner')
      .addTag('Audit log', 'Every security-relevant action, for admins')
      .addTag('Webhooks', 'Outgoing signed webhooks and their deliveries')
      .addTag('Events', 'The live event stream')
      .addTag('Channel webhook', 'What the WhatsApp Cloud API calls, and its dead letters')
      .addTag('Health', 'Liveness and readiness')
      .addTag('Operations', 'Metrics for Prometheus')
      .build()
  );
}

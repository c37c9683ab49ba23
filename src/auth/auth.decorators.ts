import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { UserRow } from '../users/user.entity';
import type { Access } from './access';

export const PUBLIC_ROUTE = 'auth:public';
export const STREAM_TICKET = 'auth:stream-ticket';

/** The route answers without credentials (login, health, the channel webhook). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

/**
 * The route also accepts a one-time stream ticket (StreamTickets) as the `ticket` query parameter:
 * browsers' EventSource cannot send headers. Only for the event stream; redacted from logs.
 */
export const AllowStreamTicket = (): MethodDecorator & ClassDecorator => SetMetadata(STREAM_TICKET, true);

export const SIGNED_URL = 'auth:signed-url';

/**
 * The route also answers, without a token, a URL signed by `SignedUrls` for its exact path and
 * still unexpired (`?expires=…&signature=…`): for what a browser loads by itself (`<img src>`).
 * There is no user then; the handler must not need one.
 */
export const AllowSignedUrl = (): MethodDecorator & ClassDecorator => SetMetadata(SIGNED_URL, true);

export type AuthenticatedRequest = FastifyRequest & {
  user: UserRow;
  /** The credential the request came with, and until when it works: an open stream ends when it stops. */
  access: Access;
};

/** The access the request came with (see AuthenticatedRequest). */
export const CurrentAccess = createParamDecorator((_: unknown, context: ExecutionContext): Access => {
  return context.switchToHttp().getRequest<AuthenticatedRequest>().access;
});

export const ENROLMENT_ROUTE = 'auth:enrolment';

/**
 * The route serves a user whom REQUIRE_2FA covers before they have a second factor (everything
 * else answers them 403): who they are, enrolment, their password, logout.
 */
export const AllowBeforeSecondFactor = (): MethodDecorator & ClassDecorator => SetMetadata(ENROLMENT_ROUTE, true);

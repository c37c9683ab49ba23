import { AsyncLocalStorage } from 'node:async_hooks';

/** Who is acting in the current request, as the audit log records them. */
export interface RequestActor {
  /** The user's uuid. */
  id: string;
  /** Their e-mail at the time: the record still names them after they are deleted. */
  email: string;
}

/** What the audit log needs to know about the request an action was done in. */
export interface RequestContext {
  /** The client's address as the trusted proxies report it (request.ip). */
  ip: string;
  /** Set by the auth guard once the caller is known; null on public routes and before. */
  actor: RequestActor | null;
}

/**
 * The current request's context, for the audit log: entered for every request by the app's
 * onRequest hook, so a service records who did what without each controller passing it down.
 * Outside a request (a job, a timer) there is none and the record has no actor or address.
 */
export const requestContext = new AsyncLocalStorage<RequestContext>();

/** Names the caller of the current request (the auth guard, once the credential is checked). */
export function setRequestActor(actor: RequestActor): void {
  const context = requestContext.getStore();
  if (context) context.actor = actor;
}

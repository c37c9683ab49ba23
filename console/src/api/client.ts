import type { BodyOf, Method, Operation, PathsWith, QueryOf, Success } from './operations';
import type { components } from './schema';

/** The API's shapes, by the names the service's OpenAPI document gives them. */
export type Schemas = components['schemas'];
export type Conversation = Schemas['ConversationResponse'];
export type Message = Schemas['MessageResponse'];
export type User = Schemas['UserResponse'];
export type Me = Schemas['MeResponse'];

/** A refusal of the API: its status and its `{"error"}` sentence. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds to wait, on a 429. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

type Options<O> = {
  /** Values for the `{name}` segments of the path. */
  params?: Record<string, string>;
  query?: QueryOf<O>;
  body?: BodyOf<O>;
};

const listeners = new Set<(error: ApiError) => void>();
let token: string | null = null;

/** The bearer token every request carries; null after logout. */
export function setToken(value: string | null): void {
  token = value;
}

export function currentToken(): string | null {
  return token;
}

/** Called on every refusal of a signed-in request: the shell logs out on 401, shows a 429's wait. */
export function onApiError(listener: (error: ApiError) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function urlOf(path: string, params: Record<string, string> = {}, query: object = {}): string {
  const filled = path.replace(/\{(\w+)\}/g, (_all, name: string) => encodeURIComponent(params[name] ?? ''));
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `${filled}?${text}` : filled;
}

/**
 * Saves what a GET of the API answers (a CSV export) as a file: it needs the bearer header, which
 * a plain link cannot send, so it is fetched, then handed to the browser.
 */
export async function downloadFile(url: string, filename: string): Promise<void> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${currentToken()}` } });
  if (!response.ok) throw new Error(`The export failed (${response.status})`);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = filename;
  link.click();
  URL.revokeObjectURL(link.href);
}

async function errorOf(response: Response): Promise<ApiError> {
  let message = `The service answered ${response.status}`;
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === 'string') message = body.error;
  } catch {
    // Not JSON (a proxy's page): the status says it.
  }
  const retryAfter = response.headers.get('retry-after');
  return new ApiError(response.status, message, retryAfter === null ? null : Number(retryAfter));
}

async function call<R>(method: Method, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<R> {
  const all: Record<string, string> = { ...headers };
  if (token) all.authorization = `Bearer ${token}`;
  if (body !== undefined && !all['content-type']) all['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method: method.toUpperCase(),
      headers: all,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The service cannot be reached: check your connection');
  }
  if (!response.ok) {
    const error = await errorOf(response);
    if (token) for (const listener of listeners) listener(error);
    throw error;
  }
  if (response.status === 204) return undefined as R;
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as R;
}

/** The API, typed by the service's own OpenAPI document: a path or a body it does not describe does not compile. */
export const api = {
  get<P extends PathsWith<'get'>>(path: P, options: Options<Operation<P, 'get'>> = {}) {
    return call<Success<Operation<P, 'get'>>>('get', urlOf(path, options.params, options.query ?? {}));
  },
  post<P extends PathsWith<'post'>>(path: P, options: Options<Operation<P, 'post'>> = {}) {
    return call<Success<Operation<P, 'post'>>>('post', urlOf(path, options.params, options.query ?? {}), options.body ?? {});
  },
  patch<P extends PathsWith<'patch'>>(path: P, options: Options<Operation<P, 'patch'>> = {}) {
    return call<Success<Operation<P, 'patch'>>>('patch', urlOf(path, options.params, options.query ?? {}), options.body ?? {});
  },
  put<P extends PathsWith<'put'>>(path: P, options: Options<Operation<P, 'put'>> = {}) {
    return call<Success<Operation<P, 'put'>>>('put', urlOf(path, options.params, options.query ?? {}), options.body ?? {});
  },
  delete<P extends PathsWith<'delete'>>(path: P, options: Options<Operation<P, 'delete'>> = {}) {
    return call<Success<Operation<P, 'delete'>>>('delete', urlOf(path, options.params, options.query ?? {}), options.body);
  },
  /** A CSV body (the contact import). */
  postText<P extends PathsWith<'post'>>(path: P, text: string, contentType: string) {
    return call<Success<Operation<P, 'post'>>>('post', path, text, { 'content-type': contentType });
  },
  /** A file, as multipart, reporting the share sent (0..1) as it goes: fetch cannot tell upload progress, XMLHttpRequest can. */
  upload(path: '/api/v1/media', file: File, onProgress: (share: number) => void): Promise<Schemas['UploadedMediaResponse']> {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('POST', path);
      if (token) request.setRequestHeader('authorization', `Bearer ${token}`);
      request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
      request.onerror = () => reject(new ApiError(0, 'The upload was interrupted: check your connection'));
      request.onload = () => {
        let body: { error?: string } = {};
        try {
          body = JSON.parse(request.responseText) as { error?: string };
        } catch {
          // The status says it.
        }
        if (request.status >= 200 && request.status < 300) resolve(body as Schemas['UploadedMediaResponse']);
        else reject(new ApiError(request.status, body.error ?? `The upload was refused (${request.status})`));
      };
      const form = new FormData();
      form.append('file', file, file.name);
      request.send(form);
    });
  },
};

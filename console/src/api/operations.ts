import type { paths } from './schema.js';

/** The operations of the service's OpenAPI document, as types the console and the tests share. */
export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** The operation of a path and method, as the generated types declare it. */
export type Operation<P extends keyof paths, M extends Method> = paths[P][M] extends infer O
  ? O extends { responses: unknown }
    ? O
    : never
  : never;
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
/** The body of the success answer (200, 201 or 202) of an operation. */
export type Success<O> = O extends { responses: infer R }
  ? 200 extends keyof R
    ? JsonOf<R[200]>
    : 201 extends keyof R
      ? JsonOf<R[201]>
      : 202 extends keyof R
        ? JsonOf<R[202]>
        : undefined
  : never;
export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? Q : never;
export type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The documented paths that have an operation for a method. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never;
}[keyof paths];

type Segments<S extends string> = S extends `${infer Head}/${infer Tail}` ? [Head, ...Segments<Tail>] : [S];
type WithoutQuery<U extends string> = U extends `${infer Path}?${string}` ? Path : U;
/** Whether a URL's segments fill a path's, a `{name}` segment taking any one non-empty segment. */
type Fills<U extends string[], P extends string[]> = U extends [infer UH extends string, ...infer UT extends string[]]
  ? P extends [infer PH extends string, ...infer PT extends string[]]
    ? (PH extends `{${string}}` ? (UH extends '' ? false : true) : UH extends PH ? true : false) extends true
      ? Fills<UT, PT>
      : false
    : false
  : P extends []
    ? true
    : false;
type Filled<U extends string> = {
  [P in keyof paths & string]: Fills<Segments<WithoutQuery<U>>, Segments<P>> extends true ? P : never;
}[keyof paths & string];
/**
 * The documented path a concrete URL (`/api/v1/conversations/${id}?limit=5`) calls; never when it
 * calls none. A path spelled out wins over one with a `{name}` there, as the router decides
 * (`/conversations/counts` is not `/conversations/{id}`).
 */
export type PathOf<U extends string> = WithoutQuery<U> extends Filled<U> ? WithoutQuery<U> : Filled<U>;

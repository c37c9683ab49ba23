/**
 * Calls of the service's API as a section's admin: JSON bodies (or a string sent as `contentType`,
 * a CSV import), the answer's JSON (null for a 204); any other status than 2xx throws with the answer.
 */
export function serviceApi(serviceUrl: string, token: string) {
  return async (method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<unknown> => {
    const response = await fetch(`${serviceUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response.status === 204 ? null : response.json();
  };
}

import { useEffect, useState } from 'preact/hooks';

/** A tiny history router: the console has a dozen pages, a library would weigh more than this. */
export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const changed = () => setVersion((version) => version + 1);
    addEventListener('popstate', changed);
    return () => removeEventListener('popstate', changed);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/** Follows a same-origin link without reloading the page (modifier keys keep the browser's own behaviour). */
export function followLink(event: MouseEvent): void {
  const anchor = (event.target as Element).closest('a');
  if (!anchor || anchor.target || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(anchor.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/') || anchor.hasAttribute('download')) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
}

/** After logging in: the page asked for (`?next=`, same origin only), or the inbox. */
export function goAfterLogin(): void {
  const next = new URLSearchParams(location.search).get('next');
  navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : location.pathname === '/login' ? '/' : location.pathname, true);
}

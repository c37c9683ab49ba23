import { cloneElement, type ComponentChildren, type TargetedEvent, type VNode } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { errorText } from './format';

/**
 * A labelled control: every control of the console has a visible label, tied to it by id (a label
 * wrapped around a select would also name it by its chosen option).
 */
export function Field(props: { label: string; hint?: string; children: VNode<{ id?: string }> }) {
  const id = useId();
  const control = cloneElement(props.children, { id, ...(props.hint ? { 'aria-describedby': `${id}-hint` } : {}) });
  return (
    <div class="field">
      <label class="field-label" for={id}>
        {props.label}
      </label>
      {control}
      {props.hint && (
        <span class="field-hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      )}
    </div>
  );
}

/** The sentence of a refusal, announced to screen readers. */
export function ErrorNote(props: { error: unknown }) {
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {errorText(props.error)}
    </p>
  );
}

/** Runs an action, keeping its pending state and the error it ended with. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(
    async (...args: A) => {
      setPending(true);
      setError(null);
      try {
        await action(...args);
        return true;
      } catch (caught) {
        setError(caught);
        return false;
      } finally {
        setPending(false);
      }
    },
    [action],
  );
  return { run, pending, error, setError };
}

/** A page of a list with "Load more": the API's `{data, next_cursor}` pages. */
export function usePages<T>(load: (cursor: string | undefined) => Promise<{ data: T[]; next_cursor: string | null }>, deps: unknown[]) {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  const generation = useRef(0);
  const fetchPage = useCallback(
    async (from: string | undefined, replace: boolean) => {
      const mine = ++generation.current;
      setLoading(true);
      setError(null);
      try {
        const page = await load(from);
        if (mine !== generation.current) return;
        setItems((previous) => (replace ? page.data : [...previous, ...page.data]));
        setCursor(page.next_cursor);
      } catch (caught) {
        if (mine === generation.current) setError(caught);
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    // The caller names what the load depends on.
    deps,
  );
  useEffect(() => {
    void fetchPage(undefined, true);
  }, [fetchPage, version]);
  return {
    items,
    setItems,
    loading,
    error,
    hasMore: cursor !== null,
    more: () => cursor !== null && !loading && fetchPage(cursor, false),
    reload: () => setVersion((v) => v + 1),
  };
}

export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-label={props.title} onClose={props.onClose} onCancel={props.onClose}>
      <header class="dialog-header">
        <h2>{props.title}</h2>
        <button type="button" class="icon-button" aria-label="Close" onClick={props.onClose}>
          ✕
        </button>
      </header>
      {props.children}
    </dialog>
  );
}

export function PageHeader(props: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1>{props.title}</h1>
      <div class="page-actions">{props.children}</div>
    </header>
  );
}

export function LoadMore(props: { hasMore: boolean; loading: boolean; onMore: () => void }) {
  if (!props.hasMore && !props.loading) return null;
  return (
    <button type="button" class="button secondary load-more" disabled={props.loading} onClick={props.onMore}>
      {props.loading ? 'Loading…' : 'Load more'}
    </button>
  );
}

export type InputEvent = TargetedEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>;
export const valueOf = (event: InputEvent) => event.currentTarget.value;

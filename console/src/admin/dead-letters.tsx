import { api, type Schemas } from '../api/client';
import { fullTime } from '../format';
import { ErrorNote, LoadMore, PageHeader, useAction, usePages } from '../ui';

/** What the channel webhook could not take (kept to replay once fixed), and the errors the channel reported. */
export function AdminDeadLetters() {
  const letters = usePages((cursor) => api.get('/api/v1/inbound/failed', { query: { cursor, limit: 50 } }), []);
  const errors = usePages((cursor) => api.get('/api/v1/inbound/errors', { query: { cursor, limit: 50 } }), []);
  const replay = useAction(async (letter: Schemas['DeadLetterResponse']) => {
    await api.post('/api/v1/inbound/failed/{id}/replay', { params: { id: letter.id } });
    letters.reload();
  });
  return (
    <section class="page">
      <PageHeader title="Dead letters" />
      <p class="muted">Channel webhook bodies that could not be processed. Replay one once the cause is fixed.</p>
      <ErrorNote error={letters.error ?? replay.error} />
      {letters.items.length === 0 && !letters.loading && <p>None.</p>}
      <ul class="plain-list">
        {letters.items.map((letter) => (
          <li class="letter">
            <p>
              <strong>{fullTime(letter.received_at)}</strong>: {letter.error}
              {letter.replayed_at && ` · replayed ${fullTime(letter.replayed_at)}`}
              {letter.replay_error && ` · replay failed: ${letter.replay_error}`}
            </p>
            <details>
              <summary>Body</summary>
              <pre>{letter.body}</pre>
            </details>
            <button type="button" class="button secondary" onClick={() => void replay.run(letter)}>
              Replay
            </button>
          </li>
        ))}
      </ul>
      <LoadMore hasMore={letters.hasMore} loading={letters.loading} onMore={() => void letters.more()} />
      <h2>Errors reported by the channel</h2>
      <ErrorNote error={errors.error} />
      {errors.items.length === 0 && !errors.loading && <p>None.</p>}
      <ul class="plain-list">
        {errors.items.map((error) => (
          <li>
            <strong>{fullTime(error.received_at)}</strong> {error.code ?? ''} {error.title ?? ''} {error.details ?? ''}
          </li>
        ))}
      </ul>
      <LoadMore hasMore={errors.hasMore} loading={errors.loading} onMore={() => void errors.more()} />
    </section>
  );
}

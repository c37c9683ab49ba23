import { useEffect, useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { ErrorNote, Field, PageHeader, useAction, valueOf } from '../ui';
import { useWorkspace } from '../workspace';

type PricingRow = Schemas['PricingReportRow'];

/** The channel's pricing types, as a team reads them. */
const PRICING_TYPES: Record<string, string> = {
  regular: 'Charged',
  free_customer_service: 'Free: within the customer service window',
  free_entry_point: 'Free: after an ad or page button',
};

/** `YYYY-MM` of a date, in UTC like the report's periods. */
function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** The first moment of the month and of the next one, as the report takes them. */
function periodOf(month: string): { from: string; to: string } {
  const [year, index] = month.split('-').map(Number);
  return { from: new Date(Date.UTC(year, index - 1, 1)).toISOString(), to: new Date(Date.UTC(year, index, 1)).toISOString() };
}

/**
 * Reports: what the channel charged for the month's outbound messages, per inbox, category and
 * pricing type, as it reported them on the messages' statuses. An agent sees their inboxes.
 */
export function ReportsPage() {
  const { inboxes } = useWorkspace();
  const [month, setMonth] = useState(monthOf(new Date()));
  const [rows, setRows] = useState<PricingRow[] | null>(null);
  const load = useAction(async (wanted: string) => {
    setRows((await api.get('/api/v1/reports/pricing', { query: periodOf(wanted) })).data);
  });
  useEffect(() => {
    if (/^\d{4}-\d{2}$/.test(month)) void load.run(month);
  }, [month]);
  const nameOf = (inboxId: string) => inboxes.find((inbox) => inbox.id === inboxId)?.name ?? inboxId;
  const charged = (rows ?? []).filter((row) => row.type === 'regular').reduce((sum, row) => sum + row.messages, 0);
  // Older statuses carry no type: they count as neither.
  const free = (rows ?? []).filter((row) => row.type?.startsWith('free_')).reduce((sum, row) => sum + row.messages, 0);
  return (
    <section class="page">
      <PageHeader title="Reports" />
      <h2>What the channel charged</h2>
      <p class="muted">
        Outbound messages of the month, counted by the pricing WhatsApp reported on their statuses. Messages it has not priced yet are not
        counted.
      </p>
      <Field label="Month">
        <input type="month" value={month} onInput={(event) => setMonth(valueOf(event))} />
      </Field>
      <ErrorNote error={load.error} />
      {rows !== null && (
        <>
          <p role="status">
            {charged} charged, {free} free
          </p>
          {rows.length === 0 ? (
            <p>No priced messages this month.</p>
          ) : (
            <table class="table" aria-label="Priced messages">
              <thead>
                <tr>
                  <th scope="col">Inbox</th>
                  <th scope="col">Category</th>
                  <th scope="col">Pricing</th>
                  <th scope="col">Model</th>
                  <th scope="col" class="number">
                    Messages
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr>
                    <td>{nameOf(row.inbox_id)}</td>
                    <td>{row.category}</td>
                    <td>{row.type === null ? '—' : (PRICING_TYPES[row.type] ?? row.type)}</td>
                    <td>{row.pricing_model ?? '—'}</td>
                    <td class="number">{row.messages}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

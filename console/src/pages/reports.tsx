import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, downloadFile, urlOf, type Schemas } from '../api/client';
import { Chart, type ChartSeries } from '../components/chart';
import { duration } from '../format';
import { ErrorNote, Field, PageHeader, useAction, valueOf } from '../ui';
import { useWorkspace } from '../workspace';

type Figures = Schemas['ReportSummaryRow'];
type PricingRow = Schemas['PricingReportRow'];

/** The channel's pricing types, as a team reads them. */
const PRICING_TYPES: Record<string, string> = {
  regular: 'Charged',
  free_customer_service: 'Free: within the customer service window',
  free_entry_point: 'Free: after an ad or page button',
};

/** Days and weeks are the reader's: the browser's time zone. */
const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** `YYYY-MM-DD` of a local date `days` days from today. */
function localDate(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() + days);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/** The day after a date (`YYYY-MM-DD`): the period's exclusive end for a last day chosen inclusive. */
function dayAfter(date: string): string {
  const next = new Date(`${date}T12:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/** The first moment of a local date (`YYYY-MM-DD`), as an ISO time: what the pricing report, which counts in UTC, is given. */
function startOf(date: string): string {
  return new Date(`${date}T00:00:00`).toISOString();
}

/** The most days the service groups a summary by (ten years): the page draws the period by day. */
const MAX_DAYS = 3660;

/** "45 s", "12 min", "3 h 20 min"; a dash without a value. */
function seconds(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return value < 60 ? `${Math.round(value)} s` : duration(value * 1000);
}

/** A count; an axis' tick between whole numbers gets no label. */
const count = (value: number) => (Number.isInteger(value) ? String(value) : '');

interface Period {
  from: string;
  last: string;
  inboxId: string;
  businessHours: boolean;
}

/** The figures of one grouping, and of the whole period. */
interface Report {
  total: Figures;
  days: Figures[];
  agents: Figures[];
  teams: Figures[];
  pricing: PricingRow[];
}

/**
 * Reports: how the team is doing over a period (conversations, first response and resolution
 * times, ratings), by day, agent and team, and what the channel charged. Each chart has the
 * numbers in a table beside it; the CSV holds one row per conversation. An agent sees
 * their inboxes and, by agent, themselves.
 */
export function ReportsPage() {
  const { inboxes } = useWorkspace();
  const [period, setPeriod] = useState<Period>({ from: localDate(-29), last: localDate(0), inboxId: '', businessHours: false });
  const [report, setReport] = useState<Report | null>(null);
  const query = (wanted: Period) => ({
    from: wanted.from,
    to: dayAfter(wanted.last),
    time_zone: TIME_ZONE,
    inbox_id: wanted.inboxId || undefined,
    business_hours: wanted.businessHours ? ('true' as const) : undefined,
  });
  // Each change of the period starts a load; only the latest one's figures are shown.
  const latest = useRef(0);
  const load = useAction(async (wanted: Period) => {
    const generation = ++latest.current;
    const base = query(wanted);
    const summary = (group_by?: 'day' | 'agent' | 'team') => api.get('/api/v1/reports/summary', { query: { ...base, group_by } });
    const [total, days, agents, teams, pricing] = await Promise.all([
      summary(),
      summary('day'),
      summary('agent'),
      summary('team'),
      api.get('/api/v1/reports/pricing', { query: { from: startOf(base.from), to: startOf(base.to), inbox_id: base.inbox_id } }),
    ]);
    if (generation !== latest.current) return;
    setReport({ total: total.data[0], days: days.data, agents: agents.data, teams: teams.data, pricing: pricing.data });
  });
  const days = (Date.parse(period.last) - Date.parse(period.from)) / 86_400_000 + 1;
  const tooLong = days > MAX_DAYS;
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(period.from) && /^\d{4}-\d{2}-\d{2}$/.test(period.last) && days >= 1 && !tooLong;
  useEffect(() => {
    if (valid) void load.run(period);
  }, [period.from, period.last, period.inboxId, period.businessHours]);
  const exportCsv = useAction(() => downloadFile(urlOf('/api/v1/reports/conversations.csv', {}, query(period)), 'conversations.csv'));

  return (
    <section class="page reports">
      <PageHeader title="Reports">
        <button type="button" class="button" disabled={!valid || exportCsv.pending} onClick={() => void exportCsv.run()}>
          Download conversations (CSV)
        </button>
      </PageHeader>
      <div class="report-filters">
        <Field label="From">
          <input type="date" value={period.from} max={period.last} onInput={(event) => setPeriod({ ...period, from: valueOf(event) })} />
        </Field>
        <Field label="To (inclusive)">
          <input type="date" value={period.last} min={period.from} onInput={(event) => setPeriod({ ...period, last: valueOf(event) })} />
        </Field>
        <Field label="Inbox">
          <select value={period.inboxId} onChange={(event) => setPeriod({ ...period, inboxId: event.currentTarget.value })}>
            <option value="">All inboxes</option>
            {inboxes.map((inbox) => (
              <option value={inbox.id}>{inbox.name}</option>
            ))}
          </select>
        </Field>
        <label class="check">
          <input
            type="checkbox"
            checked={period.businessHours}
            onChange={(event) => setPeriod({ ...period, businessHours: event.currentTarget.checked })}
          />
          Count business hours only
        </label>
      </div>
      <p class="muted">
        Days in {TIME_ZONE}. A first response is the first agent's answer after the customer's first message (automatic messages are not
        answers); a reopened conversation counts once per opening.
      </p>
      {tooLong && (
        <p class="error" role="alert">
          The page draws a report by day, at most {MAX_DAYS} days: choose a shorter period.
        </p>
      )}
      <ErrorNote error={load.error} />
      <ErrorNote error={exportCsv.error} />
      {report && <ReportFigures report={report} inboxName={(id) => inboxes.find((inbox) => inbox.id === id)?.name ?? id} />}
    </section>
  );
}

function ReportFigures(props: { report: Report; inboxName: (id: string) => string }) {
  const { total, days, agents, teams, pricing } = props.report;
  const daySeries = useMemo<ChartSeries[]>(
    () => [
      { label: 'Conversations opened', values: days.map((day) => day.conversations_opened), format: count },
      {
        label: 'First response (median)',
        values: days.map((day) => (day.first_response_seconds.median === null ? null : day.first_response_seconds.median / 60)),
        format: (minutes) => seconds(minutes * 60),
        axis: 'right',
      },
    ],
    [days],
  );
  const dayLabels = useMemo(() => days.map((day) => day.group.label), [days]);
  return (
    <>
      <dl class="tiles" aria-label="The period in figures">
        <Tile label="Conversations opened" value={count(total.conversations_opened)} />
        <Tile label="Resolved" value={count(total.conversations_resolved)} />
        <Tile label="Open at the end" value={count(total.conversations_open)} />
        <Tile label="First response, median" value={seconds(total.first_response_seconds.median)} />
        <Tile label="First response, 90th percentile" value={seconds(total.first_response_seconds.p90)} />
        <Tile label="Resolution, median" value={seconds(total.resolution_seconds.median)} />
        <Tile label="Satisfaction" value={total.csat.average === null ? '—' : `${total.csat.average} / 5 (${total.csat.count})`} />
        <Tile label="Campaign sends" value={count(total.campaign_sends)} />
      </dl>

      <h2>By day</h2>
      <div class="report-pair">
        <Chart title="Conversations opened and first response time by day" kind="line" labels={dayLabels} series={daySeries} />
        <FiguresTable caption="By day" first="Day" rows={days} />
      </div>

      <h2>By agent</h2>
      <GroupBars title="Conversations resolved by agent" rows={agents} first="Agent" />

      <h2>By team</h2>
      <GroupBars title="Conversations resolved by team" rows={teams} first="Team" />

      <h2>Satisfaction</h2>
      <Satisfaction ratings={total.csat.ratings} />

      <h2>What the channel charged</h2>
      <Cost rows={pricing} inboxName={props.inboxName} />
    </>
  );
}

function Tile(props: { label: string; value: string }) {
  return (
    <div class="tile">
      <dt>{props.label}</dt>
      <dd>{props.value}</dd>
    </div>
  );
}

/** Bars of resolved conversations per group, and the group's figures in a table beside them. */
function GroupBars(props: { title: string; rows: Figures[]; first: string }) {
  const labels = useMemo(() => props.rows.map((row) => row.group.label), [props.rows]);
  const series = useMemo<ChartSeries[]>(
    () => [{ label: 'Resolved', values: props.rows.map((row) => row.conversations_resolved), format: count }],
    [props.rows],
  );
  if (props.rows.length === 0) return <p>Nothing in this period.</p>;
  return (
    <div class="report-pair">
      <Chart title={props.title} kind="bars" labels={labels} series={series} />
      <FiguresTable caption={props.title} first={props.first} rows={props.rows} />
    </div>
  );
}

function FiguresTable(props: { caption: string; first: string; rows: Figures[] }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={`${props.caption}: the figures`}>
      <table class="table" aria-label={props.caption}>
        <thead>
          <tr>
            <th scope="col">{props.first}</th>
            <th scope="col" class="number">
              Opened
            </th>
            <th scope="col" class="number">
              Resolved
            </th>
            <th scope="col" class="number">
              Open
            </th>
            <th scope="col" class="number">
              First response (median / p90)
            </th>
            <th scope="col" class="number">
              Resolution (median / p90)
            </th>
            <th scope="col" class="number">
              Messages in / out
            </th>
            <th scope="col" class="number">
              Rating
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr>
              <th scope="row">{row.group.label}</th>
              <td class="number">{row.conversations_opened}</td>
              <td class="number">{row.conversations_resolved}</td>
              <td class="number">{row.conversations_open}</td>
              <td class="number">
                {seconds(row.first_response_seconds.median)} / {seconds(row.first_response_seconds.p90)}
              </td>
              <td class="number">
                {seconds(row.resolution_seconds.median)} / {seconds(row.resolution_seconds.p90)}
              </td>
              <td class="number">
                {row.messages_in} / {row.messages_out}
              </td>
              <td class="number">{row.csat.average === null ? '—' : `${row.csat.average} (${row.csat.count})`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const RATINGS = ['1', '2', '3', '4', '5'];

function Satisfaction(props: { ratings: number[] }) {
  if (props.ratings.every((ratings) => ratings === 0)) return <p>No ratings in this period.</p>;
  return (
    <CountedBars
      title="Customers' ratings (1 to 5)"
      table="Customers' ratings"
      labelHeading="Rating"
      countHeading="Answers"
      labels={RATINGS}
      counts={props.ratings}
    />
  );
}

/** Bars of one count per label, and the same numbers in a table beside them. */
function CountedBars(props: {
  title: string;
  table: string;
  labelHeading: string;
  countHeading: string;
  labels: string[];
  counts: number[];
}) {
  const series = useMemo<ChartSeries[]>(
    () => [{ label: props.countHeading, values: props.counts, format: count }],
    [props.countHeading, props.counts],
  );
  return (
    <div class="report-pair">
      <Chart title={props.title} kind="bars" labels={props.labels} series={series} />
      <table class="table" aria-label={props.table}>
        <thead>
          <tr>
            <th scope="col">{props.labelHeading}</th>
            <th scope="col" class="number">
              {props.countHeading}
            </th>
          </tr>
        </thead>
        <tbody>
          {props.counts.map((counted, index) => (
            <tr>
              <th scope="row">{props.labels[index]}</th>
              <td class="number">{counted}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Outbound messages by the pricing category the channel reported: bars of the charged ones per
 * category with their numbers beside them, then every inbox's rows.
 */
function Cost(props: { rows: PricingRow[]; inboxName: (id: string) => string }) {
  const byCategory = useMemo(() => {
    const totals = new Map<string, number>();
    for (const row of props.rows) totals.set(row.category, (totals.get(row.category) ?? 0) + (row.type === 'regular' ? row.messages : 0));
    return [...totals.entries()];
  }, [props.rows]);
  const labels = useMemo(() => byCategory.map(([category]) => category), [byCategory]);
  const counts = useMemo(() => byCategory.map(([, messages]) => messages), [byCategory]);
  const charged = props.rows.filter((row) => row.type === 'regular').reduce((sum, row) => sum + row.messages, 0);
  // Older statuses carry no type: they count as neither.
  const free = props.rows.filter((row) => row.type?.startsWith('free_')).reduce((sum, row) => sum + row.messages, 0);
  return (
    <>
      <p role="status">
        {charged} charged, {free} free
      </p>
      {props.rows.length === 0 ? (
        <p>No priced messages in this period. Messages the channel has not priced yet are not counted.</p>
      ) : (
        <>
          <CountedBars
            title="Charged messages by category"
            table="Charged messages by category"
            labelHeading="Category"
            countHeading="Charged messages"
            labels={labels}
            counts={counts}
          />
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
              {props.rows.map((row) => (
                <tr>
                  <td>{props.inboxName(row.inbox_id)}</td>
                  <td>{row.category}</td>
                  <td>{row.type === null ? '—' : (PRICING_TYPES[row.type] ?? row.type)}</td>
                  <td>{row.pricing_model ?? '—'}</td>
                  <td class="number">{row.messages}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}

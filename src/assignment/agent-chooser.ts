/**
 * The router's choices, pure: which waiting conversation goes to which agent. The repository
 * reads the queue and the agents inside the router's transaction; this decides; the service writes.
 */

export type RoutingMode = 'round_robin' | 'balanced';

/** A conversation waiting for an agent, with its inbox's policy; the queue comes oldest first. */
export interface WaitingConversation {
  id: string;
  inboxId: string;
  /** The conversation's own team, else the policy's: only its members take it; null: any member of the inbox. */
  teamId: string | null;
  mode: RoutingMode;
  /** The most open conversations an agent may have to be given this one; null: no limit. */
  capacity: number | null;
}

/** An agent who takes conversations now (online and present), and their load. */
export interface AvailableAgent {
  id: string;
  inboxIds: readonly string[];
  teamIds: readonly string[];
  /** Their open conversations, in every inbox. */
  open: number;
  /** When the router last gave them one (ms since the epoch); null: never. */
  lastAssignedAt: number | null;
}

export interface Assignment {
  conversationId: string;
  agentId: string;
  /** The agent's new lastAssignedAt. */
  at: number;
}

/** Whether the agent may be given the conversation: a member of its inbox (and team), below its capacity. */
export function mayTake(agent: AvailableAgent, conversation: WaitingConversation): boolean {
  return (
    agent.inboxIds.includes(conversation.inboxId) &&
    (conversation.teamId === null || agent.teamIds.includes(conversation.teamId)) &&
    (conversation.capacity === null || agent.open < conversation.capacity)
  );
}

const byId = (a: AvailableAgent, b: AvailableAgent) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byLastAssigned = (a: AvailableAgent, b: AvailableAgent) => (a.lastAssignedAt ?? -Infinity) - (b.lastAssignedAt ?? -Infinity);

/**
 * The agent for one conversation, or null when nobody may take it: `round_robin`, the one given a
 * conversation least recently (never first); `balanced`, the one with the fewest open, then the
 * least recently given one. Ties go to the smaller id, so the choice is the same on every instance.
 */
export function chooseAgent(conversation: WaitingConversation, agents: readonly AvailableAgent[]): AvailableAgent | null {
  const eligible = agents.filter((agent) => mayTake(agent, conversation));
  if (eligible.length === 0) return null;
  const order =
    conversation.mode === 'balanced'
      ? (a: AvailableAgent, b: AvailableAgent) => a.open - b.open || byLastAssigned(a, b) || byId(a, b)
      : (a: AvailableAgent, b: AvailableAgent) => byLastAssigned(a, b) || byId(a, b);
  return eligible.reduce((best, agent) => (order(agent, best) < 0 ? agent : best));
}

/**
 * The assignments for a queue, oldest first: each conversation to the agent `chooseAgent` picks,
 * whose load then counts it (one more open, given one just now) for the next. A conversation
 * nobody may take stays waiting, and those behind it that someone may take are still given.
 * `now` is the time of the first; the next ones are a millisecond apart, so the round goes on.
 */
export function planAssignments(queue: readonly WaitingConversation[], agents: readonly AvailableAgent[], now: number): Assignment[] {
  const loads = agents.map((agent) => ({ ...agent }));
  const plan: Assignment[] = [];
  for (const conversation of queue) {
    const agent = chooseAgent(conversation, loads);
    if (!agent) continue;
    agent.open += 1;
    agent.lastAssignedAt = now + plan.length;
    plan.push({ conversationId: conversation.id, agentId: agent.id, at: agent.lastAssignedAt });
  }
  return plan;
}

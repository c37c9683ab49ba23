import fc from 'fast-check';
import { type AvailableAgent, chooseAgent, mayTake, planAssignments, type WaitingConversation } from '../../src/assignment/agent-chooser';

const INBOXES = ['i1', 'i2', 'i3'];
const TEAMS = ['t1', 't2'];

const agentArbitrary = (id: string) =>
  fc.record({
    id: fc.constant(id),
    inboxIds: fc.subarray(INBOXES),
    teamIds: fc.subarray(TEAMS),
    open: fc.nat({ max: 6 }),
    lastAssignedAt: fc.option(fc.integer({ min: 0, max: 1_000 }), { nil: null }),
  });
const agentsArbitrary = fc
  .integer({ min: 0, max: 8 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => agentArbitrary(`a${i}`))));
/** Per inbox one policy, as the router reads it: every conversation of an inbox has its mode and capacity. */
const policiesArbitrary = fc.record(
  Object.fromEntries(
    INBOXES.map((inbox) => [
      inbox,
      fc.record({
        mode: fc.constantFrom('round_robin' as const, 'balanced' as const),
        capacity: fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }),
      }),
    ]),
  ) as Record<string, fc.Arbitrary<{ mode: 'round_robin' | 'balanced'; capacity: number | null }>>,
);
const queueArbitrary = policiesArbitrary.chain((policies) =>
  fc
    .array(fc.record({ inboxId: fc.constantFrom(...INBOXES), teamId: fc.option(fc.constantFrom(...TEAMS), { nil: null }) }), {
      maxLength: 40,
    })
    .map((items) => items.map((item, i): WaitingConversation => ({ id: `c${i}`, ...item, ...policies[item.inboxId] }))),
);

/** Replays a plan over the agents, checking each step against the rules; answers the loads after it. */
function replay(queue: readonly WaitingConversation[], agents: readonly AvailableAgent[], plan: ReturnType<typeof planAssignments>) {
  const loads = new Map(agents.map((agent) => [agent.id, { ...agent }]));
  const given = new Set<string>();
  let step = 0;
  for (const conversation of queue) {
    const assignment = plan[step];
    if (assignment?.conversationId !== conversation.id) {
      // Left waiting: nobody could take it at its turn.
      expect([...loads.values()].filter((agent) => mayTake(agent, conversation))).toEqual([]);
      continue;
    }
    step += 1;
    expect(given.has(conversation.id)).toBe(false);
    given.add(conversation.id);
    const agent = loads.get(assignment.agentId)!;
    const eligible = [...loads.values()].filter((other) => mayTake(other, conversation));
    expect(mayTake(agent, conversation)).toBe(true);
    const rank = (other: AvailableAgent) => other.lastAssignedAt ?? -Infinity;
    if (conversation.mode === 'balanced') {
      expect(agent.open).toBe(Math.min(...eligible.map((other) => other.open)));
      const tied = eligible.filter((other) => other.open === agent.open);
      expect(rank(agent)).toBe(Math.min(...tied.map(rank)));
    } else {
      expect(rank(agent)).toBe(Math.min(...eligible.map(rank)));
    }
    agent.open += 1;
    agent.lastAssignedAt = assignment.at;
  }
  expect(step).toBe(plan.length);
  return loads;
}

describe('the router’s choice of agents (property)', () => {
  it('gives each conversation once, to a member of its inbox and team below capacity, chosen by the mode, leaving none that anyone could take', () => {
    fc.assert(
      fc.property(agentsArbitrary, queueArbitrary, (agents, queue) => {
        const plan = planAssignments(queue, agents, 10_000);
        const loads = replay(queue, agents, plan);
        // Nobody ends above the capacity of any conversation given to them, unless they started there (and then got none of it).
        for (const assignment of plan) {
          const conversation = queue.find((c) => c.id === assignment.conversationId)!;
          const before = agents.find((agent) => agent.id === assignment.agentId)!;
          if (conversation.capacity !== null) expect(before.open).toBeLessThan(conversation.capacity);
        }
        // No conversation left waiting that some agent could take with their final load.
        const assigned = new Set(plan.map((assignment) => assignment.conversationId));
        for (const conversation of queue.filter((c) => !assigned.has(c.id)))
          expect([...loads.values()].some((agent) => mayTake(agent, conversation))).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('serves an inbox oldest first: a later conversation is never given while an earlier one of the same inbox and team waits', () => {
    fc.assert(
      fc.property(agentsArbitrary, queueArbitrary, (agents, queue) => {
        const assigned = new Set(planAssignments(queue, agents, 10_000).map((assignment) => assignment.conversationId));
        queue.forEach((later, j) => {
          if (!assigned.has(later.id)) return;
          for (const earlier of queue.slice(0, j))
            if (earlier.inboxId === later.inboxId && earlier.teamId === later.teamId) expect(assigned.has(earlier.id)).toBe(true);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('round_robin: three agents never given one take turns', () => {
    const agents = ['b', 'a', 'c'].map((id) => ({ id, inboxIds: ['i1'], teamIds: [], open: 0, lastAssignedAt: null }));
    const queue = Array.from({ length: 6 }, (_, i): WaitingConversation => ({
      id: `c${i}`,
      inboxId: 'i1',
      teamId: null,
      mode: 'round_robin',
      capacity: null,
    }));
    expect(planAssignments(queue, agents, 0).map((assignment) => assignment.agentId)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('answers nobody when no agent is a member of the inbox, and the member when one is', () => {
    const conversation: WaitingConversation = { id: 'c', inboxId: 'i2', teamId: null, mode: 'balanced', capacity: null };
    const outsider = { id: 'x', inboxIds: ['i1'], teamIds: [], open: 0, lastAssignedAt: null };
    expect(chooseAgent(conversation, [outsider])).toBeNull();
    const member = { ...outsider, id: 'm', inboxIds: ['i2'] };
    expect(chooseAgent(conversation, [outsider, member])?.id).toBe('m');
  });
});

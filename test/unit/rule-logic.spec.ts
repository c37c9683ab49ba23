import { actionsProblem, conditionHolds, conditionsProblem, type RuleCondition, type RuleFacts } from '../../src/automation/rule-logic';

const FACTS: RuleFacts = {
  messageText: 'Où est ma Commande AB123456 ?',
  contactName: 'Zoë Adams',
  contactPhone: '+14155550100',
  contactTags: ['Gold', 'newsletter'],
  contactAttributes: { tier: 'platinum', orders: 12, vip: true },
  inboxId: 'inb_00000000000070008000000000000001',
  labels: [],
  withinBusinessHours: false,
};
const holds = (field: string, operator: RuleCondition['operator'], value: RuleCondition['value']) =>
  conditionHolds({ field, operator, value }, FACTS);

describe('rule conditions', () => {
  it('compare text case- and accent-insensitively', () => {
    expect(holds('message.text', 'contains', 'OU EST')).toBe(true);
    expect(holds('contact.name', 'equals', 'zoe adams')).toBe(true);
    expect(holds('contact.name', 'equals', 'zoe')).toBe(false);
  });

  it('run matches as written, in RE2 syntax', () => {
    expect(holds('message.text', 'matches', '[A-Z]{2}\\d{6}')).toBe(true);
    expect(holds('message.text', 'matches', 'commande')).toBe(false);
    expect(holds('message.text', 'matches', '(?i)commande')).toBe(true);
  });

  it('hold on a list when one element does, and its negation when none does', () => {
    expect(holds('contact.tags', 'contains', 'gold')).toBe(true);
    expect(holds('contact.tags', 'contains', 'gol')).toBe(false);
    expect(holds('contact.tags', 'not_contains', 'silver')).toBe(true);
    expect(holds('contact.tags', 'in', ['silver', 'NEWSLETTER'])).toBe(true);
    expect(holds('conversation.labels', 'not_equals', 'vip')).toBe(true);
    expect(holds('conversation.labels', 'equals', 'vip')).toBe(false);
  });

  it('read attributes of every type as text, and a missing one satisfies only negations', () => {
    expect(holds('contact.attributes.orders', 'equals', '12')).toBe(true);
    expect(holds('contact.attributes.vip', 'equals', 'true')).toBe(true);
    expect(holds('contact.attributes.missing', 'equals', 'x')).toBe(false);
    expect(holds('contact.attributes.missing', 'not_equals', 'x')).toBe(true);
    expect(holds('contact.attributes.toString', 'contains', 'function')).toBe(false);
  });

  it('compare business hours as a boolean', () => {
    expect(holds('within_business_hours', 'equals', false)).toBe(true);
    expect(holds('within_business_hours', 'not_equals', false)).toBe(false);
  });

  it('finish a catastrophic pattern on a long text (linear time: a backtracking engine would outlive the test timeout)', () => {
    const long = { ...FACTS, messageText: `${'a'.repeat(4000)}!` };
    expect(conditionHolds({ field: 'message.text', operator: 'matches', value: '(a+)+$' }, long)).toBe(false);
    expect(conditionHolds({ field: 'message.text', operator: 'matches', value: '(a+)+!$' }, long)).toBe(true);
  });
});

describe('rule shapes', () => {
  it('name the first condition or action at fault, and accept good ones', () => {
    expect(conditionsProblem([{ field: 'message.text', operator: 'contains', value: 'a' }])).toBeNull();
    expect(conditionsProblem([{ field: 'message.text', operator: 'contains', value: 'a' }, { field: 'x' }])).toContain(
      'conditions[1].field',
    );
    expect(conditionsProblem([{ field: 'contact.attributes.1bad', operator: 'equals', value: 'a' }])).toContain('conditions[0].field');
    expect(actionsProblem([{ type: 'close' }, { type: 'snooze', duration: '4h' }])).toBeNull();
    expect(actionsProblem([{ type: 'close' }, { type: 'send_text', text: '' }])).toContain('actions[1].text');
    expect(actionsProblem([{ type: 'send_webhook_event', name: 'Bad Name' }])).toContain('actions[0].name');
    expect(actionsProblem([{ type: 'set_attribute', key: 'tier', value: { nested: true } }])).toContain('actions[0].value');
  });
});

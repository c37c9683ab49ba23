import { parsePublicId } from '../src/common/ids';
import { eventually } from './support/channel';
import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

describe('"typing…" shown to the customer', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({ env: graph.channelEnv });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const typing = (conversationId: string, token = admin) => t.request('POST', `/api/v1/conversations/${conversationId}/typing`, { token });
  /** The channel id of the customer's newest message in the conversation. */
  const newestInboundWamid = async (conversationId: string) =>
    (
      await t.sql<{ channel_message_id: string }>(
        "SELECT channel_message_id FROM messages WHERE conversation_id = $1 AND direction = 'inbound' ORDER BY created_at DESC LIMIT 1",
        [parsePublicId('conv', conversationId)],
      )
    )[0].channel_message_id;

  it("answers 202 and asks the channel to show it on the customer's newest message", async () => {
    const { id, phone } = await customerWrites(t, { text: 'Hello?' });
    await customerWrites(t, { phone: phone.slice(1), text: 'Anyone?' });
    const wamid = await newestInboundWamid(id);
    const answer = await typing(id);
    expect(answer.status).toBe(202);
    expect(answer.text).toBe('');
    await eventually(async () => expect(graph.typingIndicators(wamid)).toHaveLength(1));
    expect(graph.typingIndicators(wamid)[0].body).toEqual({
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: wamid,
      typing_indicator: { type: 'text' },
    });
  });

  it('answers 204 and sends nothing within 20 seconds of the last time, and shows it again after', async () => {
    const { id } = await customerWrites(t);
    const wamid = await newestInboundWamid(id);
    expect((await typing(id)).status).toBe(202);
    expect((await typing(id)).status).toBe(204);
    expect((await typing(id)).status).toBe(204);
    await t.sql("UPDATE conversations SET typing_shown_at = now() - interval '21 seconds' WHERE id = $1", [parsePublicId('conv', id)]);
    expect((await typing(id)).status).toBe(202);
    await eventually(async () => expect(graph.typingIndicators(wamid)).toHaveLength(2));
  });

  it('answers 204 outside the 24-hour window, where only a template can be sent', async () => {
    const { id } = await customerWrites(t, { timestamp: Math.floor(Date.now() / 1000) - 24 * 3600 - 60 });
    const wamid = await newestInboundWamid(id);
    expect((await typing(id)).status).toBe(204);
    const { id: inside } = await customerWrites(t);
    expect((await typing(inside)).status).toBe(202);
    expect(graph.typingIndicators(wamid)).toHaveLength(0);
  });

  it('answers 204 for a blocked customer, whom the channel would not show it', async () => {
    const { id, phone } = await customerWrites(t);
    await t.sql('UPDATE contacts SET blocked_at = now() WHERE phone = $1', [phone]);
    expect((await typing(id)).status).toBe(204);
    await t.sql('UPDATE contacts SET blocked_at = NULL WHERE phone = $1', [phone]);
    expect((await typing(id)).status).toBe(202);
  });

  it('answers 204 and sends nothing with read receipts turned off: the indicator is a read receipt', async () => {
    const silent = await startTestApp({ env: { ...graph.channelEnv, MESSAGING_READ_RECEIPTS: 'false' } });
    try {
      const { id } = await customerWrites(silent);
      const wamid = (
        await silent.sql<{ channel_message_id: string }>(
          "SELECT channel_message_id FROM messages WHERE conversation_id = $1 AND direction = 'inbound'",
          [parsePublicId('conv', id)],
        )
      )[0].channel_message_id;
      const answer = await silent.request('POST', `/api/v1/conversations/${id}/typing`, { token: await silent.adminToken() });
      expect(answer.status).toBe(204);
      expect(graph.typingIndicators(wamid)).toHaveLength(0);
    } finally {
      await silent.close();
    }
  });

  it('answers 404 for an unknown conversation, and for an agent of another inbox', async () => {
    expect((await typing('conv_0000000000007000800000000000000a')).status).toBe(404);
    const { id } = await customerWrites(t);
    const other = await t.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: { name: 'Other number', phone_number_id: '500000000000003', access_token: 'other-token' },
    });
    const outsider = await t.createUser({ role: 'agent', inbox_ids: [other.body.id] });
    expect((await typing(id, outsider.token)).status).toBe(404);
    const member = await t.createUser({ role: 'agent' });
    expect((await typing(id, member.token)).status).toBe(202);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseInvocation } from '../../scripts/simulate/args';
import { UsageError } from '../../scripts/simulate/target';

const simulationOf = (...argv: string[]) => {
  const invocation = parseInvocation(argv, {});
  if (invocation === 'help') throw new Error('help');
  return invocation.simulation;
};

describe('npm run simulate: the command line', () => {
  it.each([
    [['--text', 'Hi'], { type: 'text', text: 'Hi' }],
    [['--react', 'wamid.A1', '--emoji', '👍'], { type: 'reaction', messageId: 'wamid.A1', emoji: '👍' }],
    [['--react', 'wamid.A1', '--emoji', ''], { type: 'reaction', messageId: 'wamid.A1', emoji: '' }],
    [['--button-reply', 'Yes please'], { type: 'button_reply', id: 'yes_please', title: 'Yes please' }],
    [['--list-reply', 'Express', '--reply-id', 'x1'], { type: 'list_reply', id: 'x1', title: 'Express' }],
    [['--location', '37.48,-122.14', '--location-name', 'HQ'], { type: 'location', latitude: 37.48, longitude: -122.14, name: 'HQ' }],
    [['--contact', 'Ana Souza=+5511999999999'], { type: 'contacts', cards: [{ name: 'Ana Souza', phone: '+5511999999999' }] }],
    [
      ['--media', 'audio:123', '--voice'],
      { type: 'media', kind: 'audio', mediaId: '123', mimeType: 'audio/ogg; codecs=opus', voice: true },
    ],
    [
      ['--media', 'image:9', '--caption', 'receipt'],
      { type: 'media', kind: 'image', mediaId: '9', mimeType: 'image/jpeg', caption: 'receipt' },
    ],
  ])('reads %j as a customer message', (argv, content) => {
    expect(simulationOf('--from', '+15551234567', ...argv)).toEqual({
      kind: 'message',
      from: '15551234567',
      content,
      replyTo: null,
      name: null,
      file: null,
    });
  });

  it('takes a file as the customer media, under a new sandbox media id in the data directory', () => {
    const simulation = simulationOf('--from', '+15551234567', '--media', 'document', '--file', __filename, '--data-dir', '/srv/inbox');
    expect(simulation).toMatchObject({
      kind: 'message',
      content: { type: 'media', kind: 'document', mimeType: 'application/octet-stream', filename: basename(__filename) },
      file: { path: __filename, directory: '/srv/inbox/sandbox-media' },
    });
    if (simulation.kind !== 'message' || simulation.content.type !== 'media') throw new Error('not media');
    expect(simulation.content.mediaId).toMatch(/^sim-[0-9a-f]{24}$/);
    expect(simulation.file?.mediaId).toBe(simulation.content.mediaId);
  });

  it('reads the type of a file from its extension, and takes --mime-type over it', () => {
    const photo = join(mkdtempSync(join(tmpdir(), 'simulate-')), 'receipt.JPG');
    writeFileSync(photo, 'not really a jpeg');
    expect(simulationOf('--from', '+15551234567', '--media', 'image', '--file', photo)).toMatchObject({
      content: { mimeType: 'image/jpeg' },
      file: { mimeType: 'image/jpeg', directory: resolve('./data/sandbox-media') },
    });
    expect(simulationOf('--from', '+15551234567', '--media', 'image', '--file', photo, '--mime-type', 'image/png')).toMatchObject({
      content: { mimeType: 'image/png' },
    });
  });

  it('quotes a message with --reply-to', () => {
    expect(simulationOf('--from', '15551234567', '--text', 'that', '--reply-to', 'wamid.Q')).toMatchObject({ replyTo: 'wamid.Q' });
  });

  it.each([
    [['--text', 'a', '--location', '1,2'], /one message is one kind/],
    [['--react', 'wamid.A'], /--react needs --emoji/],
    [['--react', 'msg_0193', '--emoji', 'x'], /not the API id/],
    [['--text', 'a', '--emoji', '👍'], /--emoji goes with --react/],
    [['--react', 'wamid.A', '--emoji', '👍', '--reply-to', 'wamid.B'], /quotes nothing/],
    [['--location', 'north'], /is not <latitude>,<longitude>/],
    [['--contact', 'nobody'], /is not <name>=<phone>/],
    [['--media', 'gif:1'], /is not <kind>:<media-id>/],
    [['--media', 'image:1', '--voice'], /--voice goes with --media audio/],
    [['--media', 'image'], /or <kind> with --file/],
    [['--media', 'image:1', '--file', __filename], /with --file, give the kind only/],
    [['--media', 'image', '--file', '/no/such/file.jpg'], /cannot read a file/],
    [['--text', 'a', '--file', __filename], /--file goes with --media/],
    [['--media', 'image:1', '--data-dir', '/tmp'], /--data-dir goes with --media <kind> --file/],
    [[], /missing one of --text/],
  ])('refuses %j', (argv, message) => {
    expect(() => simulationOf('--from', '+15551234567', ...argv)).toThrow(UsageError);
    expect(() => simulationOf('--from', '+15551234567', ...argv)).toThrow(message);
  });

  it.each([['wamid.sandbox.…'], ['wamid.sandbox...']])(
    'refuses the README placeholder %s as a status id, naming the id to give',
    (wamid) => {
      expect(() => simulationOf('--status', wamid, '--to', '+15551234567', '--value', 'read')).toThrow(
        /is the README's placeholder: give the whole id the service logged/,
      );
    },
  );

  it('still takes a status, played included', () => {
    expect(simulationOf('--status', 'wamid.S', '--to', '+15551234567', '--value', 'played')).toEqual({
      kind: 'status',
      wamid: 'wamid.S',
      to: '15551234567',
      value: 'played',
    });
    expect(() => simulationOf('--status', 'wamid.S', '--to', '+15551234567', '--value', 'read', '--text', 'x')).toThrow(
      /goes with a message/,
    );
  });
});

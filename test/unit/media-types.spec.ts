import { classifyUpload, kindOfType } from '../../src/media/media-types';

describe('classifyUpload', () => {
  it('takes the type read from the bytes over the name and the declared type', () => {
    expect(classifyUpload('image/png', 'application/pdf', 'invoice.pdf')).toEqual({
      mimeType: 'image/png',
      kind: 'image',
      mustBeText: false,
    });
  });

  it.each([
    ['image/jpeg', 'image'],
    ['video/mp4', 'video'],
    ['video/3gpp', 'video'],
    ['audio/mpeg', 'audio'],
    ['audio/aac', 'audio'],
    ['audio/amr', 'audio'],
    ['image/webp', 'sticker'],
    ['application/pdf', 'document'],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'document'],
  ])('sends %s as %s', (detected, kind) => {
    expect(classifyUpload(detected, undefined, undefined)).toMatchObject({ mimeType: detected, kind });
  });

  it('names M4A and Opus as the channel does', () => {
    expect(classifyUpload('audio/x-m4a', undefined, 'a.m4a')).toMatchObject({ mimeType: 'audio/mp4', kind: 'audio' });
    expect(classifyUpload('audio/ogg; codecs=opus', undefined, 'a.ogg')).toMatchObject({ mimeType: 'audio/ogg', kind: 'audio' });
  });

  it('refuses a detected type the channel does not take, naming it', () => {
    expect(classifyUpload('image/gif', 'image/jpeg', 'photo.jpg')).toEqual({
      refused: expect.stringMatching(/^The file is image\/gif, which WhatsApp does not take/),
    });
    expect(classifyUpload('application/zip', undefined, 'a.docx')).toEqual({ refused: expect.stringMatching(/application\/zip/) });
  });

  it('names an old Office container by its declared type or extension, and refuses one named neither', () => {
    expect(classifyUpload('application/x-cfb', 'application/vnd.ms-excel', 'sheet')).toMatchObject({
      mimeType: 'application/vnd.ms-excel',
      kind: 'document',
    });
    expect(classifyUpload('application/x-cfb', 'application/octet-stream', 'Report.DOC')).toMatchObject({ mimeType: 'application/msword' });
    expect(classifyUpload('application/x-cfb', undefined, 'mail.msg')).toEqual({ refused: expect.any(String) });
  });

  it('takes undetected bytes as text only when declared or named so, and then checks them as text', () => {
    expect(classifyUpload(undefined, 'text/plain; charset=utf-8', 'notes')).toEqual({
      mimeType: 'text/plain',
      kind: 'document',
      mustBeText: true,
    });
    expect(classifyUpload(undefined, 'application/octet-stream', 'notes.txt')).toEqual({
      mimeType: 'text/plain',
      kind: 'document',
      mustBeText: true,
    });
    expect(classifyUpload(undefined, 'application/octet-stream', 'data.bin')).toEqual({
      refused: expect.stringMatching(/could not be read from its bytes/),
    });
  });
});

describe('kindOfType', () => {
  it('reads a channel type with parameters, and knows nothing else', () => {
    expect(kindOfType('audio/ogg; codecs=opus')).toBe('audio');
    expect(kindOfType('IMAGE/JPEG')).toBe('image');
    expect(kindOfType('text/html')).toBeNull();
    expect(kindOfType('image/svg+xml')).toBeNull();
  });
});

import type { MediaKind } from './media.entity';

const MiB = 1024 * 1024;

/** The most the channel takes of each kind (WhatsApp Cloud API limits; MB read as MiB). */
export const KIND_LIMITS: Record<MediaKind, number> = {
  image: 5 * MiB,
  video: 16 * MiB,
  audio: 16 * MiB,
  sticker: 500 * 1024,
  document: 100 * MiB,
};

/** The largest media of any kind: an upload or a download is cut off past it. */
export const MAX_MEDIA_BYTES = Math.max(...Object.values(KIND_LIMITS));

const WORD = 'application/msword';
const EXCEL = 'application/vnd.ms-excel';
const POWERPOINT = 'application/vnd.ms-powerpoint';

/** Every type the channel takes, and the kind it is sent as. */
export const CHANNEL_TYPES: Record<string, MediaKind> = {
  'image/jpeg': 'image',
  'image/png': 'image',
  'video/mp4': 'video',
  'video/3gpp': 'video',
  'audio/aac': 'audio',
  'audio/amr': 'audio',
  'audio/mpeg': 'audio',
  'audio/mp4': 'audio',
  'audio/ogg': 'audio',
  'image/webp': 'sticker',
  'application/pdf': 'document',
  'text/plain': 'document',
  [WORD]: 'document',
  [EXCEL]: 'document',
  [POWERPOINT]: 'document',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'document',
};

/** What file-type names differently from the channel. */
const SAME_AS: Record<string, string> = {
  'audio/x-m4a': 'audio/mp4',
  'audio/ogg; codecs=opus': 'audio/ogg',
  'audio/opus': 'audio/ogg',
};

/** The old Office formats share one container (CFB) that the bytes cannot tell apart: the extension or declared type does. */
const LEGACY_OFFICE: Record<string, string> = { doc: WORD, xls: EXCEL, ppt: POWERPOINT };

export const ACCEPTED_TYPES_SENTENCE =
  'image (JPEG, PNG), video (MP4, 3GPP), audio (AAC, AMR, MP3, M4A, OGG), sticker (WebP) or document (PDF, Word, Excel, PowerPoint, plain text)';

/** The type of an upload, or why the channel would not take it. */
export type Classified =
  | {
      mimeType: string;
      kind: MediaKind;
      /** Plain text has no signature: the whole upload must be UTF-8 text without NUL, or it is refused. */
      mustBeText: boolean;
    }
  | { refused: string };

/**
 * The type of an upload, from what `file-type` read in its first bytes (`detected`), never from
 * its name, except for the two formats without a signature of their own: the old Office
 * formats (the CFB container, named by the extension or the declared type) and plain text
 * (undetected bytes declared or named as text, then checked to be UTF-8 text to the end).
 */
export function classifyUpload(detected: string | undefined, declared: string | undefined, filename: string | undefined): Classified {
  const extension = /\.([a-z0-9]{1,8})$/i.exec(filename ?? '')?.[1]?.toLowerCase();
  const declaredType = declared?.split(';')[0].trim().toLowerCase();
  if (detected !== undefined) {
    const type = SAME_AS[detected] ?? detected;
    if (CHANNEL_TYPES[type]) return { mimeType: type, kind: CHANNEL_TYPES[type], mustBeText: false };
    if (type === 'application/x-cfb') {
      const office = Object.values(LEGACY_OFFICE).includes(declaredType ?? '') ? declaredType! : LEGACY_OFFICE[extension ?? ''];
      if (office) return { mimeType: office, kind: 'document', mustBeText: false };
    }
    return { refused: `The file is ${type}, which WhatsApp does not take; it takes ${ACCEPTED_TYPES_SENTENCE}` };
  }
  if (declaredType === 'text/plain' || extension === 'txt') return { mimeType: 'text/plain', kind: 'document', mustBeText: true };
  return { refused: `The type of the file could not be read from its bytes; WhatsApp takes ${ACCEPTED_TYPES_SENTENCE}` };
}

/** The kind a channel MIME type is sent as, or null when the channel does not take it. */
export function kindOfType(mimeType: string): MediaKind | null {
  const type = mimeType.split(';')[0].trim().toLowerCase();
  return CHANNEL_TYPES[SAME_AS[type] ?? type] ?? null;
}

/** `1.5 MB` for messages. */
export function describeSize(bytes: number): string {
  return bytes >= MiB ? `${Math.round((bytes / MiB) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** What the channel calls the kinds of media, each a message type of its own. */
export const MEDIA_KINDS = ['image', 'audio', 'video', 'document', 'sticker'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

/** `pending` until an inbound media's bytes are stored; `failed` or `expired` when they never will be. */
export type MediaStatus = 'pending' | 'ready' | 'failed' | 'expired';

/** A row of `media`. */
export interface MediaRow {
  id: string;
  /** `inbound`: a customer's, downloaded from the channel; `outbound`: uploaded by an agent. */
  direction: 'inbound' | 'outbound';
  kind: MediaKind;
  status: MediaStatus;
  /** As the channel named it (inbound) or as read from the bytes (uploads). */
  mime_type: string;
  /** Bytes; null until stored. bigint columns come back as strings from the driver. */
  size: string | number | null;
  filename: string | null;
  /** Hex SHA-256 of the stored bytes; null until stored. */
  sha256: string | null;
  /** Where the bytes are in the media store; null until stored. */
  storage_key: string | null;
  /** Inbound: the channel's media id to download. */
  channel_media_id: string | null;
  /** Inbound: the SHA-256 the channel's webhook gave (hex or base64, as it came). */
  channel_sha256: string | null;
  /** Inbound: when the channel drops the media (7 days after the message); no attempt after it. */
  available_until: Date | null;
  /** Outbound: the channel's id of the upload, sent by id while it is fresh. */
  channel_upload_id: string | null;
  channel_uploaded_at: Date | null;
  /** Inbound: the inbox that received it (its token downloads it, its members read it); null for an upload. */
  inbox_id: string | null;
  /** Outbound: the inbox its channel_upload_id was uploaded through, the number that id is valid for. */
  channel_upload_inbox_id: string | null;
  /** Why the media is failed or expired, or why the last download attempt failed. */
  error: string | null;
  attempts: number;
  next_attempt_at: Date | null;
  uploaded_by: string | null;
  created_at: Date;
  updated_at: Date;
}

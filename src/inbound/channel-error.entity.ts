/** A row of `channel_errors`: an error the channel reported for a whole webhook change (`value.errors`). */
export interface ChannelErrorRow {
  id: string;
  received_at: Date;
  code: number | null;
  title: string | null;
  details: string | null;
  /** The error as the channel sent it. */
  error: Record<string, unknown>;
}

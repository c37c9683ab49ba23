/** A row of `inbound_dead_letters`: a channel webhook body kept as received because storing it failed. */
export interface DeadLetterRow {
  id: string;
  received_at: Date;
  /** The exact bytes of the body, whatever they hold. */
  raw_body: Buffer;
  /** X-Hub-Signature-256 as received, or null without one. */
  signature: string | null;
  /** Why storing the body failed. */
  error: string;
  /** The phone number id (`value.metadata.phone_number_id`) no inbox had; null when storing failed for another reason. */
  unknown_phone_number_id: string | null;
  /** The top frames of that failure's stack, for whoever reads the table (the answers never carry it). */
  error_stack: string | null;
  /** When a replay stored the body; a replayed body is kept, marked. */
  replayed_at: Date | null;
  /** Why the last replay failed; null once one succeeds. */
  replay_error: string | null;
}

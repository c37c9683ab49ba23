/**
 * The sandbox channel's media directory, shared with `npm run simulate` (which puts a customer's
 * media there): kept apart from the channel so the script loads nothing of the service.
 */

/** Where the sandbox keeps "the channel's" media, under DATA_DIR: a customer's is a file put there (`npm run simulate -- --media <kind> --file <path>` does). */
export const SANDBOX_MEDIA_DIRECTORY = 'sandbox-media';

/** What the sandbox knows of a media beside its bytes (`<id>.json`). */
export interface SandboxMediaInfo {
  mime_type: string;
  sha256?: string;
  file_size: number;
}

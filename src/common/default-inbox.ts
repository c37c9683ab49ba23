/**
 * The default inbox, made by the migration that introduced inboxes with every conversation of the
 * install in it, and described at each start by the MESSAGING_* settings. Users belong to it
 * unless made with other inboxes.
 */
export const DEFAULT_INBOX_ID = '00000000-0000-7000-8000-000000000001';

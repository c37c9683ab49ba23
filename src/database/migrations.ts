import { Users1763830000000 } from './migrations/1763830000000-users';
import { Inbox1763840000000 } from './migrations/1763840000000-inbox';
import { Webhooks1763850000000 } from './migrations/1763850000000-webhooks';
import { SendAttempts1763860000000 } from './migrations/1763860000000-send-attempts';
import { InboundDeadLetters1763870000000 } from './migrations/1763870000000-inbound-dead-letters';
import { Retention1763880000000 } from './migrations/1763880000000-retention';
import { EventSequence1763890000000 } from './migrations/1763890000000-event-sequence';
import { Instances1763895000000 } from './migrations/1763895000000-instances';
import { Media1763900000000 } from './migrations/1763900000000-media';
import { Templates1763910000000 } from './migrations/1763910000000-templates';
import { MessageKinds1763920000000 } from './migrations/1763920000000-message-kinds';
import { TeamEmail1763930000000 } from './migrations/1763930000000-team-email';
import { ContactsAtScale1763940000000 } from './migrations/1763940000000-contacts-at-scale';
import { LabelsSnoozeNotes1763950000000 } from './migrations/1763950000000-labels-snooze-notes';
import { MessageSearch1763960000000 } from './migrations/1763960000000-message-search';
import { ReadState1763970000000 } from './migrations/1763970000000-read-state';
import { RecordedWork1763980000000 } from './migrations/1763980000000-recorded-work';
import { ContactBlocking1763990000000 } from './migrations/1763990000000-contact-blocking';
import { PasswordChangeRequired1764000000000 } from './migrations/1764000000000-password-change-required';
import { DevelopmentSecrets1764010000000 } from './migrations/1764010000000-development-secrets';
import { StreamAccess1764020000000 } from './migrations/1764020000000-stream-access';
import { SecurityControls1764040000000 } from './migrations/1764040000000-security-controls';
import { UploadReferences1764050000000 } from './migrations/1764050000000-upload-references';
import { UploadRetention1764030000000 } from './migrations/1764030000000-upload-retention';
import { CustomerUserIds1764060000000 } from './migrations/1764060000000-customer-user-ids';
import { Inboxes1764070000000 } from './migrations/1764070000000-inboxes';
import { UnroutedDeadLetters1764080000000 } from './migrations/1764080000000-unrouted-dead-letters';
import { MediaInboxes1764090000000 } from './migrations/1764090000000-media-inboxes';
import { InboxMembers1764100000000 } from './migrations/1764100000000-inbox-members';
import { TemplateCatalogues1764110000000 } from './migrations/1764110000000-template-catalogues';
import { MessageInboxes1764120000000 } from './migrations/1764120000000-message-inboxes';
import { BlockedInbox1764130000000 } from './migrations/1764130000000-blocked-inbox';
import { InteractiveCannedResponses1764140000000 } from './migrations/1764140000000-interactive-canned-responses';
import { InboxChannelErrors1764150000000 } from './migrations/1764150000000-inbox-channel-errors';
import { TypingShown1764160000000 } from './migrations/1764160000000-typing-shown';
import { MessagePricing1764170000000 } from './migrations/1764170000000-message-pricing';
import { TeamsAndAssignment1764180000000 } from './migrations/1764180000000-teams-and-assignment';
import { InboxAutomation1764190000000 } from './migrations/1764190000000-inbox-automation';
import { RulesMacrosCsat1764200000000 } from './migrations/1764200000000-rules-macros-csat';
import { Campaigns1764210000000 } from './migrations/1764210000000-campaigns';
import { ReportFacts1764220000000 } from './migrations/1764220000000-report-facts';
import { ListRowColumns1764230000000 } from './migrations/1764230000000-list-row-columns';
import { CountersWithoutNoise1764240000000 } from './migrations/1764240000000-counters-without-noise';
import { PreviewStatusRead1764250000000 } from './migrations/1764250000000-preview-status-read';
import { LabelNamesInOrder1764260000000 } from './migrations/1764260000000-label-names-in-order';
import { LookupsByConversation1764270000000 } from './migrations/1764270000000-lookups-by-conversation';
import { ReportFactsCorrections1764280000000 } from './migrations/1764280000000-report-facts-corrections';
import { ForeignKeyLookups1764290000000 } from './migrations/1764290000000-foreign-key-lookups';
import { LastCampaignMessage1764300000000 } from './migrations/1764300000000-last-campaign-message';

/** Every migration, in order, one a line so that migrations added on other branches merge cleanly. Listed explicitly so the build needs no file globbing. */
export const MIGRATIONS = [
  Users1763830000000,
  Inbox1763840000000,
  Webhooks1763850000000,
  SendAttempts1763860000000,
  InboundDeadLetters1763870000000,
  Retention1763880000000,
  EventSequence1763890000000,
  Instances1763895000000,
  Media1763900000000,
  Templates1763910000000,
  MessageKinds1763920000000,
  TeamEmail1763930000000,
  ContactsAtScale1763940000000,
  LabelsSnoozeNotes1763950000000,
  MessageSearch1763960000000,
  ReadState1763970000000,
  RecordedWork1763980000000,
  ContactBlocking1763990000000,
  PasswordChangeRequired1764000000000,
  DevelopmentSecrets1764010000000,
  StreamAccess1764020000000,
  UploadRetention1764030000000,
  SecurityControls1764040000000,
  UploadReferences1764050000000,
  CustomerUserIds1764060000000,
  Inboxes1764070000000,
  UnroutedDeadLetters1764080000000,
  MediaInboxes1764090000000,
  InboxMembers1764100000000,
  TemplateCatalogues1764110000000,
  MessageInboxes1764120000000,
  BlockedInbox1764130000000,
  InteractiveCannedResponses1764140000000,
  InboxChannelErrors1764150000000,
  TypingShown1764160000000,
  MessagePricing1764170000000,
  TeamsAndAssignment1764180000000,
  InboxAutomation1764190000000,
  RulesMacrosCsat1764200000000,
  Campaigns1764210000000,
  ReportFacts1764220000000,
  ListRowColumns1764230000000,
  CountersWithoutNoise1764240000000,
  PreviewStatusRead1764250000000,
  LabelNamesInOrder1764260000000,
  LookupsByConversation1764270000000,
  ReportFactsCorrections1764280000000,
  ForeignKeyLookups1764290000000,
  LastCampaignMessage1764300000000,
];

import { ApiProperty } from '@nestjs/swagger';
import { CampaignResponse } from './campaign.dto';

/*
 * The payloads of the events this module owns (documented in the OpenAPI document), built only here.
 */

/**
 * `campaign.created`, `campaign.updated` (an edit, a change of status, and every few seconds while
 * its totals move) and `campaign.deleted`: the campaign as it is (as it was, for a deletion).
 */
export class CampaignEvent {
  @ApiProperty({ type: CampaignResponse })
  campaign!: CampaignResponse;

  static of(campaign: CampaignResponse): CampaignEvent {
    return { campaign };
  }
}

declare module '../events/event-payloads' {
  interface EventPayloads {
    'campaign.created': CampaignEvent;
    'campaign.updated': CampaignEvent;
    'campaign.deleted': CampaignEvent;
  }
}

/** The documented classes of the payloads above. */
export const CAMPAIGN_EVENT_SCHEMAS = {
  'campaign.created': CampaignEvent,
  'campaign.updated': CampaignEvent,
  'campaign.deleted': CampaignEvent,
};

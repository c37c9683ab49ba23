import { Injectable, OnModuleInit } from '@nestjs/common';
import type { ConversationRow } from '../conversations/conversation.entity';
import { ConversationsService } from '../conversations/conversations.service';
import { type InboundMessage, MessagesService } from '../conversations/messages.service';
import type { Db } from '../database/sql';
import { InboxesService } from '../inboxes/inboxes.service';

/** The five answers, best first as a list shows them; each row's title starts with its digit (the channel allows 24 characters). */
export const SURVEY_RATINGS = [
  { id: 'csat_5', title: '5 Excellent' },
  { id: 'csat_4', title: '4 Good' },
  { id: 'csat_3', title: '3 Okay' },
  { id: 'csat_2', title: '2 Poor' },
  { id: 'csat_1', title: '1 Very poor' },
];
const RATING_ROW = /^csat_([1-5])$/;
/** A text the customer writes within this long after rating is the rating's comment. */
const COMMENT_WITHIN_MS = 10 * 60_000;

/** What a customer's message is to the survey: a rating of it, or the comment after one. */
export type SurveyAnswer = { rating: number; at: Date; commentUntil: Date } | { comment: string };

/**
 * The satisfaction survey (the inbox's `csat`): when an agent closes a conversation inside the
 * customer's 24 hours, the customer gets an interactive list of five ratings, and their answer is
 * kept on the conversation. An answer is not the customer coming back: it reopens nothing, so a
 * rating arriving after the conversation was reopened (by anyone) still counts for the survey it
 * answers, the last one sent.
 */
@Injectable()
export class CsatService implements OnModuleInit {
  constructor(
    private readonly inboxes: InboxesService,
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesService,
  ) {}

  onModuleInit(): void {
    this.conversations.whenAgentCloses((db, conversationId, at) => this.survey(db, conversationId, at));
  }

  /** After an agent closed the conversation, in that transaction: the survey, when the inbox asks it and the customer can still be written to. */
  private async survey(db: Db, conversationId: string, at: Date): Promise<void> {
    const conversation = (await this.conversations.hold(db, conversationId))!;
    const csat = (await this.inboxes.automationOf(db, conversation.inbox_id))?.csat;
    if (!csat?.enabled) return;
    const sent = await this.messages.queueAutomatic(db, conversation, { type: 'interactive', interactive: surveyOf(csat.question) }, at);
    if ('queued' in sent) await this.conversations.recordSurveySent(db, conversation.id, sent.queued.id);
  }

  /**
   * Whether the customer's message (not yet stored) answers the conversation's survey: a row of the
   * survey's list quoting the last survey sent, or, while the conversation is still closed, the
   * first text within 10 minutes after that survey's rating. Null: a message like any other (a
   * text to a reopened conversation is the customer writing, and is left to the agents).
   * `conversation` is the row the ingest locked: its survey fields are those of this transaction.
   */
  async answerIn(db: Db, conversation: ConversationRow, message: InboundMessage, at: Date): Promise<SurveyAnswer | null> {
    const row = message.type === 'interactive' ? (message.content?.list_reply as { id?: unknown } | undefined)?.id : undefined;
    const rating = typeof row === 'string' ? RATING_ROW.exec(row) : null;
    if (!rating && (message.type !== 'text' || !message.text)) return null;
    if (!conversation.csat_message_id) return null;
    if (rating) {
      const quoted = message.quotedChannelMessageId && (await this.messages.idOfChannelMessage(db, message.quotedChannelMessageId));
      if (quoted !== conversation.csat_message_id) return null;
      return { rating: Number(rating[1]), at, commentUntil: new Date(at.getTime() + COMMENT_WITHIN_MS) };
    }
    const commentDue =
      conversation.status === 'closed' && conversation.csat_comment_until !== null && at <= conversation.csat_comment_until;
    return commentDue ? { comment: message.text! } : null;
  }

  /** Keeps the answer the stored message gave, with `conversation.rated`. */
  async keep(db: Db, conversationId: string, answer: SurveyAnswer): Promise<void> {
    await this.conversations.recordSurveyAnswer(db, conversationId, answer);
  }
}

/** The channel's interactive list: the question as its body, one section of the five ratings. */
function surveyOf(question: string): Record<string, unknown> {
  return {
    type: 'list',
    body: { text: question },
    action: { button: 'Rate us', sections: [{ title: 'Your rating', rows: SURVEY_RATINGS }] },
  };
}

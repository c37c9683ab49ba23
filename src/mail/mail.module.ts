import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { EmailSendProcessor } from './email-send.processor';
import { PostmarkMailer, ResendMailer, SendGridMailer } from './http-api.mailers';
import { Mailer } from './mailer';
import { MailService } from './mail.service';
import { NoProviderMailer } from './no-provider.mailer';
import { OutboundEmailRepository } from './outbound-email.repository';
import { SmtpMailer } from './smtp.mailer';

/** The one Mailer EMAIL_PROVIDER chooses; the settings were checked at start-up (a provider without its key never gets here). */
export function mailerFor(config: AppConfig): Mailer {
  switch (config.emailProvider) {
    case 'smtp':
      return new SmtpMailer(config.emailSmtpUrl!);
    case 'postmark':
      return new PostmarkMailer(config.emailApiBaseUrl!, config.emailApiKey!);
    case 'sendgrid':
      return new SendGridMailer(config.emailApiBaseUrl!, config.emailApiKey!);
    case 'resend':
      return new ResendMailer(config.emailApiBaseUrl!, config.emailApiKey!);
    case null:
      return new NoProviderMailer(config.nodeEnv === 'development');
  }
}

/**
 * E-mail: `MailService.enqueue` records one in the caller's transaction, the `email.send` job
 * sends it through the `Mailer` that EMAIL_PROVIDER chooses (injected by the abstract class).
 */
@Module({
  providers: [{ provide: Mailer, inject: [AppConfig], useFactory: mailerFor }, OutboundEmailRepository, MailService, EmailSendProcessor],
  exports: [MailService],
})
export class MailModule {}

import { Logger } from '@nestjs/common';
import { Mailer, OutgoingEmail } from './mailer';

/**
 * Without EMAIL_PROVIDER no e-mail leaves the service. In development each one is written to the
 * log whole, links included, so a developer can follow an invitation or a reset; that is the one
 * place a link's token may appear in a log, and only with NODE_ENV=development. Anywhere else
 * (test, production) a line says an e-mail was not sent, without its content or address.
 */
export class NoProviderMailer extends Mailer {
  readonly name = 'none';
  readonly delivers = false;

  constructor(
    private readonly development: boolean,
    private readonly logger: Pick<Logger, 'log'> = new Logger('Mail'),
  ) {
    super();
  }

  send(email: OutgoingEmail): Promise<string | null> {
    if (this.development) {
      this.logger.log(
        `E-mail not sent (EMAIL_PROVIDER is not set), written here for development:\nTo: ${email.to}\nSubject: ${email.subject}\n\n${email.text}`,
      );
    } else {
      this.logger.log(`E-mail ${email.id} not sent: EMAIL_PROVIDER is not set`);
    }
    return Promise.resolve(null);
  }
}

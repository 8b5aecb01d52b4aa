// Chooses where customer emails go: SMTP when SMTP_URL is set; else the outbox (the message events hold them and the console
// shows them), so a service started with nothing configured still records every message.
import type { Config } from '../config.ts';
import type { Mailer } from './port.ts';
import { smtpMailer } from './smtp.ts';

/** The outbox: sending keeps the message where the console's Outbox page shows it; nothing leaves the service. */
const outbox: Mailer = { transport: 'outbox', send: async () => ({ response: 'kept in the outbox (SMTP_URL is not set)' }), close: () => undefined };

/** The mailer SMTP_URL asks for. */
export function openMailer(config: Config): Mailer {
  return config.email.smtpUrl ? smtpMailer(config.email.smtpUrl) : outbox;
}

// The SMTP adapter of the mail port (nodemailer), configured by SMTP_URL (smtp://user:pass@host:587, smtps://...).
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Mailer, OutgoingMail } from './port.ts';

/** A mailer that sends through the SMTP server at `url`; short timeouts, so a dead server fails an attempt instead of holding the worker. */
export function smtpMailer(url: string): Mailer {
  // nodemailer is loaded by the first message: a process that sends none (a CLI command) does not load it.
  let opened: Promise<Transporter<SMTPTransport.SentMessageInfo>> | null = null;
  const open = () => (opened ??= import('nodemailer').then((m) => m.default.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 })));
  return {
    transport: 'smtp',
    async send(mail: OutgoingMail) {
      const info = await (await open()).sendMail({
        messageId: `<${mail.messageId}@core-server>`,
        from: mail.from, to: mail.to, subject: mail.subject, text: mail.text,
        attachments: mail.attachments.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
      });
      // A recipient the server refused is a bounce: an error, retried like any other failure.
      if (info.rejected.length > 0) throw new Error(`refused recipient ${info.rejected.map(String).join(', ')}: ${info.response}`);
      return { response: info.response };
    },
    close: () => void opened?.then((t) => t.close(), () => {}),
  };
}

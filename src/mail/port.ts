// The outgoing mail port: one message with its attachments, sent or kept. Services.mailer is chosen by the composition root.

/** One email to send. */
export interface OutgoingMail {
  /** The Message-ID header's local part: the message's own id, so a resend after a crash is recognisable as the same message. */
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  attachments: { filename: string; content: Buffer; contentType: string }[];
}

/** Where customer emails go: an SMTP server, or (no SMTP_URL) the outbox the console shows. */
export interface Mailer {
  transport: 'smtp' | 'outbox';
  /** Sends the message; throws with the server's answer when it is refused or the server cannot be reached. */
  send(mail: OutgoingMail): Promise<{ response: string }>;
  close(): void;
}

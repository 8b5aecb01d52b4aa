// A real SMTP server for the email tests (smtp-server), keeping what arrived parsed (mailparser); it can refuse for a while.
import { type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { type ParsedMail, simpleParser } from 'mailparser';

/** A running test SMTP server. */
export interface TestSmtp {
  url: string;
  received: ParsedMail[];
  /** While set, every recipient is refused with this reply (a bounce: 550, or a temporary 451). */
  refuse: { code: number; message: string } | null;
  /** While above 0, each message is taken this many ms after it arrived (a slow relay: senders overlap). */
  delayMs: number;
  close(): Promise<void>;
}

/** Starts an SMTP server on an ephemeral loopback port (no TLS, no auth: a local relay as a developer would run one). */
export async function startSmtp(): Promise<TestSmtp> {
  const box: TestSmtp = { url: '', received: [], refuse: null, delayMs: 0, close: async () => undefined };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!box.refuse) return callback();
      const err = Object.assign(new Error(box.refuse.message), { responseCode: box.refuse.code });
      callback(err);
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then((mail) => {
        box.received.push(mail);
        setTimeout(() => callback(), box.delayMs);
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  box.url = `smtp://127.0.0.1:${port}`;
  box.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return box;
}

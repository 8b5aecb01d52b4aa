// Passwords reach the CLI on standard input or in an environment variable, never on the command line (where
// every user of the machine sees them in `ps`, and the shell keeps them in its history).

/** The variable a password can be given in (e.g. from a secret store). */
export const PASSWORD_VARIABLE = 'CORE_SERVER_PASSWORD';

/** The password from standard input (its first line) when `fromStdin` or stdin is piped, else from CORE_SERVER_PASSWORD. */
export async function readPassword(fromStdin: boolean, fail: (message: string) => Error): Promise<string> {
  const env = process.env[PASSWORD_VARIABLE];
  if (!fromStdin && env !== undefined && env !== '') return env;
  if (!fromStdin && process.stdin.isTTY) throw fail(`give the password on standard input (--password-stdin, e.g. from a file or a secret store) or in ${PASSWORD_VARIABLE}; never on the command line`);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const [line = ''] = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
  if (!line) throw fail('standard input held no password (one line is read)');
  return line;
}

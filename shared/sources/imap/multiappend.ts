/**
 * APPEND of many messages in one command (MULTIAPPEND, RFC 3502), when the server offers it;
 * one APPEND per message otherwise. imapflow has no MULTIAPPEND of its own, so this sends
 * the command through its command queue (`exec`, the same path its own `append` takes):
 * the bytes are compiled, literals and all, by imapflow.
 */
import type { ImapFlow } from 'imapflow';

interface ExecResponse {
  next(): void;
}
interface Executes {
  exec(command: string, attributes: unknown[], options?: Record<string, unknown>): Promise<ExecResponse>;
}

/** Appends `messages` to `mailbox` with `flags`: one round trip when the server has MULTIAPPEND. */
export async function appendAll(
  client: ImapFlow,
  mailbox: string,
  messages: readonly string[],
  flags: readonly string[],
): Promise<void> {
  if (messages.length === 0) return;
  const exec = (client as unknown as Partial<Executes>).exec;
  if (messages.length === 1 || !client.capabilities.has('MULTIAPPEND') || typeof exec !== 'function') {
    for (const message of messages) await client.append(mailbox, message, [...flags]);
    return;
  }
  const flagList = flags.map((flag) => ({ type: 'ATOM', value: flag }));
  const attributes: unknown[] = [{ type: 'STRING', value: mailbox }];
  for (const message of messages) attributes.push(flagList, { type: 'LITERAL', value: Buffer.from(message) });
  const response = await exec.call(client, 'APPEND', attributes);
  response.next();
}

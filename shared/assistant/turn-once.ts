/**
 * An assistant turn sent off the request path (AWS: a `handoff.chat-turn` event) is answered
 * once, however often it is delivered. The delivery that creates the turn's claim (a
 * conditional create: `<chat id>:<turn id>`) runs it; a later delivery of an answered turn
 * gets the recorded reply and runs nothing; one that arrives while the turn is being answered
 * is refused (its host retries it), unless the claim is older than any invocation may run,
 * when the dead one's turn is taken over. A turn that throws gives its claim back.
 */
import { z } from 'zod';
import { HandoffError, RecordExistsError, VersionConflictError } from '../errors/index.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { getRecord } from '../store/records.ts';
import { sendMessage, type ChatReply } from './chat-service.ts';

/** Longer than any invocation may run (Lambda's 15 minutes): a claim this old is a dead one's. */
export const TURN_LEASE_MS = 16 * 60_000;

const TurnClaimSchema = z.object({
  id: z.string(),
  version: z.number(),
  chat_id: z.string(),
  turn_id: z.string(),
  status: z.enum(['answering', 'answered']),
  taken_at: z.string(),
  /** The reply, once answered: what a duplicate delivery is given. */
  reply: z.string().optional(),
});
type TurnClaim = z.infer<typeof TurnClaimSchema>;

/** Another delivery of the turn is answering it now: try again later. */
export class TurnInProgressError extends HandoffError {}

/** The reply to turn `turnId` of chat `chatId`: run here if no other delivery answered or is answering it. */
export async function sendMessageOnce(
  engine: EngineDeps,
  chatId: string,
  message: unknown,
  turnId: string,
  now: () => Date = () => new Date(),
): Promise<ChatReply & { duplicate: boolean }> {
  const id = `${chatId}:${turnId}`;
  const fresh = {
    id,
    chat_id: chatId,
    turn_id: turnId,
    status: 'answering' as const,
    taken_at: now().toISOString(),
  };
  let claim: TurnClaim;
  try {
    claim = TurnClaimSchema.parse(await engine.store.create('turn_claims', fresh));
  } catch (error) {
    if (!(error instanceof RecordExistsError)) throw error;
    const held = await getRecord(engine.store, 'turn_claims', TurnClaimSchema, id);
    if (!held) throw new TurnInProgressError(`turn ${turnId} of chat ${chatId} moved meanwhile; try again`);
    if (held.status === 'answered')
      return { chat_id: chatId, turn_id: turnId, text: held.reply ?? '', duplicate: true };
    if (now().getTime() - Date.parse(held.taken_at) < TURN_LEASE_MS)
      throw new TurnInProgressError(
        `turn ${turnId} of chat ${chatId} is being answered by another delivery since ${held.taken_at}`,
      );
    claim = await takeOver(engine, held, fresh.taken_at);
  }
  let reply: ChatReply;
  try {
    reply = await sendMessage(engine, chatId, message, turnId);
  } catch (error) {
    await engine.store.delete('turn_claims', id); // given back: the host's retry runs it
    throw error;
  }
  await engine.store.update(
    'turn_claims',
    { ...claim, status: 'answered', reply: reply.text },
    claim.version,
  );
  return { ...reply, duplicate: false };
}

async function takeOver(engine: EngineDeps, held: TurnClaim, takenAt: string): Promise<TurnClaim> {
  try {
    return TurnClaimSchema.parse(
      await engine.store.update('turn_claims', { ...held, taken_at: takenAt }, held.version),
    );
  } catch (error) {
    if (error instanceof VersionConflictError)
      throw new TurnInProgressError(
        `turn ${held.turn_id} of chat ${held.chat_id} was taken over by another delivery`,
        {
          cause: error,
        },
      );
    throw error;
  }
}

/**
 * A run child: the process the local server hands one run to (from its trigger, or from its
 * resume once its last question is answered), or a batch of answers to carry out while their
 * runs wait, so neither a 1,000-item run nor a 1,000-answer batch holds the server's thread.
 * It builds its workspace's engine from the same environment (same store, model and notifier
 * settings), takes the server's settings as they are now, owns the run (crash recovery judges
 * the run by this process), works it, and sends every feed event to the server, whose feed
 * the run page streams. Started by `handoff __run-child` (see child-run-launcher.ts).
 */
import { z } from 'zod';
import { loadEnv } from '../config/env.ts';
import { holdPoint } from '../config/processes.ts';
import { errorMessage } from '../errors/index.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { carryOutSentAnswer } from '../runs/carry-answer.ts';
import { adoptRun, failRun } from '../runs/lifecycle.ts';
import { getRun } from '../runs/run-repository.ts';
import { drive } from '../runs/run-loop.ts';
import { executeRun } from '../runs/start-run.ts';
import { openPlatform } from '../workspaces/platform.ts';

const SettingsSchema = z.object({
  confidenceThreshold: z.number(),
  decisionTtlHours: z.number(),
  uiBaseUrl: z.string(),
  pageSize: z.number().int().positive(),
});

/** What the server sends its child: the run to work, in which workspace, with which settings. */
export const RunOrderSchema = z.object({
  type: z.literal('run'),
  run_id: z.string().min(1),
  /** Where the run's work starts: its trigger (a created run) or its resume (a run taken for it). */
  entry: z.enum(['trigger', 'resume']).default('trigger'),
  workspace: z.string().min(1),
  settings: SettingsSchema,
});

/** Or: a batch of answers (decision ids) to carry out while their runs still wait. */
export const CarryOrderSchema = z.object({
  type: z.literal('carry'),
  decision_ids: z.array(z.string().min(1)).min(1),
  workspace: z.string().min(1),
  settings: SettingsSchema,
});

const ChildOrderSchema = z.discriminatedUnion('type', [RunOrderSchema, CarryOrderSchema]);
export type ChildOrder = z.input<typeof ChildOrderSchema>;

/** What the child sends back: feed events as they happen, that it owns the run, and how it ended. */
export type ChildMessage =
  | { type: 'emit'; channel: string; kind: string; text: string; data: Record<string, unknown> }
  | { type: 'adopted'; pid: number }
  | { type: 'done'; status: string };

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

function nextOrder(): Promise<z.infer<typeof ChildOrderSchema>> {
  return new Promise((resolve, reject) => {
    process.once('message', (message) => {
      const parsed = ChildOrderSchema.safeParse(message);
      if (parsed.success) resolve(parsed.data);
      else reject(new Error(`a run child got an order it cannot read: ${parsed.error.message}`));
    });
  });
}

/** Works the one run the server sends, then exits (0: the run settled itself, whatever its status). */
export async function runChild(): Promise<void> {
  if (!process.send) throw new Error('handoff __run-child is started by the local server, not by hand');
  // Ctrl-C at the server's terminal reaches its children too: the server decides (it waits for runs).
  process.on('SIGINT', () => undefined);
  const order = await nextOrder();
  const env = loadEnv();
  const platform = await openPlatform(env);
  const base = platform.engineFor(order.workspace);
  const engine: EngineDeps = {
    ...base,
    settings: { ...order.settings },
    emit: (channel, kind, text, data = {}) => void send({ type: 'emit', channel, kind, text, data }),
  };
  if (order.type === 'carry') return carryAnswers(engine, order.decision_ids);
  const run = await adoptRun(engine.store, await getRun(engine.store, order.run_id));
  if (!run) {
    await send({ type: 'done', status: 'not-adopted' });
    return;
  }
  await send({ type: 'adopted', pid: process.pid });
  holdPoint('run-child:adopted'); // tests: a child seen owning its run, before it works it
  let status: string;
  try {
    const worked =
      order.entry === 'resume' ? await drive(engine, run, 'resume') : await executeRun(engine, run);
    status = worked.status;
  } catch (error) {
    // The run could not settle itself: say why once, as the in-thread launcher does.
    const reason = errorMessage(error).replace(/\s+/g, ' ').trim();
    process.stderr.write(`handoff: run ${run.id} (${run.workflow_id}) failed: ${reason}\n`);
    await failRun(engine, run.id, reason);
    status = 'failed';
  }
  await send({ type: 'done', status });
}

/** Carries out each answer, as the request would have (the same claim: once); a failure is told, the rest go on. */
async function carryAnswers(engine: EngineDeps, decisionIds: string[]): Promise<void> {
  holdPoint('run-child:carrying'); // tests: answers seen handed over, not yet carried out
  for (const id of decisionIds) {
    try {
      await carryOutSentAnswer(engine, id);
    } catch (error) {
      const reason = errorMessage(error).replace(/\s+/g, ' ').trim();
      process.stderr.write(
        `handoff: decision ${id} not carried out at once (${reason}); its run's resume does it\n`,
      );
    }
  }
  await send({ type: 'done', status: 'carried' });
}

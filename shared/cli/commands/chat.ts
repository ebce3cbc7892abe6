import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { pageOfChats } from '../../chats/chat-list.ts';
import { deleteChat, getChat, renameChat } from '../../chats/chat-repository.ts';
import { InvalidInputError } from '../../errors/index.ts';
import type { EngineDeps } from '../../runs/deps.ts';
import { cliContext } from '../context.ts';
import type { WorkflowCard } from '../../chats/chat-records.ts';
import { cardLines } from '../../assistant/workflow-card.ts';
import { printJson, printTable } from '../output.ts';
import { flags, printNextPage, withPaging } from '../paging.ts';
import { WorkflowSchema } from '../../workflows/schema.ts';

/**
 * `handoff chat` (talk to the workspace assistant) and `handoff chats` (list, most recently
 * used first, a page at a time: `--limit N --cursor C`, docs/lists.md; rename, delete).
 */
export function registerChatCommands(program: Command): void {
  program
    .command('chat')
    .description('talk to the workspace assistant: describe a workflow, run it, answer questions')
    .option('--chat <CHAT_ID>', 'continue this chat (default: a new one)')
    .option('--message <TEXT>', 'send one message and print the reply (for scripts)')
    .option(
      '--edit <LINES>',
      'with --chat: change the draft as "field: value" lines (name, schedule, source, instructions, actions, options, threshold)',
    )
    .option(
      '--json',
      'with --message or --edit: print {"chat_id","text","workflow_id"?,"run_id"?,"confirm"?}',
    )
    .action(async (options: { chat?: string; message?: string; edit?: string; json?: boolean }) => {
      const { engine } = await cliContext();
      const { sendMessage } = await import('../../assistant/chat-service.ts');
      if (options.chat !== undefined) await getChat(engine.store, options.chat); // unknown: one line, exit 1
      if (options.edit !== undefined) {
        if (options.chat === undefined || options.message !== undefined)
          throw new InvalidInputError(
            '--edit needs --chat CHAT_ID (the chat whose draft to change) and no --message',
          );
        const reply = await editFields(engine, options.chat, options.edit); // every problem, one line, exit 1
        return options.json ? printJson(reply) : void process.stdout.write(footer(reply));
      }
      if (options.message !== undefined) {
        const reply = await sendMessage(
          options.json ? engine : streaming(engine),
          options.chat,
          options.message,
        );
        if (options.json) return printJson(reply);
        return void process.stdout.write(`${footer(reply)}`);
      }
      if (options.json)
        throw new InvalidInputError('--json needs --message TEXT (an interactive chat prints text)');
      await interactive(engine, options.chat, sendMessage);
    });

  withPaging(
    program
      .command('chats [VERB] [CHAT_ID] [TITLE]')
      .description(
        'list chats (most recently used first); `chats rename CHAT_ID TITLE`; `chats delete CHAT_ID`',
      ),
  )
    .option('--json', 'print JSON')
    .action(
      async (
        verb: string | undefined,
        chatId: string | undefined,
        title: string | undefined,
        options: { json?: boolean; limit: number; cursor?: string },
      ) => {
        const { engine } = await cliContext();
        if (verb === 'rename' || verb === 'delete') {
          if (!chatId) throw new InvalidInputError(`chats ${verb} needs a CHAT_ID (see \`handoff chats\`)`);
          if (verb === 'delete') {
            await deleteChat(engine.store, chatId);
            return options.json
              ? printJson({ chat_id: chatId, deleted: true })
              : console.log(`Deleted chat ${chatId}.`);
          }
          const chat = await renameChat(engine.store, chatId, title ?? '');
          return options.json
            ? printJson({ chat_id: chat.id, title: chat.title })
            : console.log(`Renamed ${chat.id}: ${chat.title}`);
        }
        if (verb !== undefined)
          throw new InvalidInputError(
            `unknown chats command "${verb}": use rename or delete, or nothing to list`,
          );
        const page = await pageOfChats(engine.store, options);
        const chats = page.items;
        printNextPage(`handoff chats${flags(options)}`, page.next_cursor);
        if (options.json) return printJson(chats);
        if (chats.length === 0) return console.log('No chats yet. Start one: handoff chat');
        printTable(
          ['chat', 'title', 'turns', 'updated'],
          chats.map((c) => [c.chat_id, c.title, c.turns, c.updated_at]),
        );
      },
    );
}

type Send = (
  engine: EngineDeps,
  chatId: string | undefined,
  message: unknown,
) => Promise<{ chat_id: string; text: string; confirm?: { summary: string; card?: WorkflowCard } }>;

/** The engine with the turn's handoffs and tool calls shown as they happen. */
function streaming(engine: EngineDeps): EngineDeps {
  return {
    ...engine,
    emit: (channel, kind, text, data) => {
      // The steps as they happen; the reply itself is printed whole when the turn ends.
      if (kind === 'handoff' || kind === 'tool_start') process.stdout.write(`  · ${text}\n`);
      engine.emit(channel, kind, text, data);
    },
  };
}

/** The reply, and a waiting step with its card in plain words and the replies that answer it. */
function footer(reply: { text: string; confirm?: { summary: string; card?: WorkflowCard } }): string {
  const c = reply.confirm;
  if (!c) return `${reply.text}\n`;
  const card = c.card ? `${cardLines(c.card).join('\n')}\n` : '';
  return `${reply.text}\n${card}[waiting for your yes: ${c.summary}]\n  yes: do it · no: drop it · edit: change its fields (or say what to change: "make it 9am")\n`;
}

/** `field: value` lines applied to the chat's draft; a DraftProblemsError lists every problem. */
async function editFields(engine: EngineDeps, chatId: string, lines: string) {
  const { parseFieldLines } = await import('../../assistant/draft-fields.ts');
  const { editDraftFields } = await import('../../assistant/card-actions.ts');
  const parsed = parseFieldLines(lines);
  return editDraftFields(engine, chatId, parsed.edits, parsed.problems);
}

/** The draft's fields as lines to change; empty when there is nothing to edit (no chat yet, or no draft in it). */
async function editorLines(engine: EngineDeps, chatId: string | undefined): Promise<string> {
  const draft = chatId === undefined ? null : (await getChat(engine.store, chatId)).draft;
  const parsed = draft ? WorkflowSchema.safeParse(draft) : null;
  if (!parsed?.success) return '';
  const { fieldLines } = await import('../../assistant/draft-fields.ts');
  return fieldLines(parsed.data)
    .map((l) => `  ${l}\n`)
    .join('');
}

async function interactive(engine: EngineDeps, chatId: string | undefined, send: Send): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  let current = chatId;
  /** While editing the draft: the `field: value` lines so far (an empty line sends them). */
  let editing: string[] | null = null;
  let shown = '';
  console.log(
    'Talk to the workspace assistant (an empty line or Ctrl-D ends; "edit" changes a draft\'s fields).',
  );
  try {
    process.stdout.write('> ');
    // Lines are read as they come (typed, or piped in all at once): none is lost while a turn runs.
    for await (const line of rl) {
      if (editing !== null && line.trim() !== '') {
        editing.push(line);
        process.stdout.write('edit> ');
        continue;
      }
      if (editing === null && line.trim() === '') break;
      try {
        if (editing !== null) {
          const lines = editing.join('\n');
          editing = null;
          const reply = await editFields(engine, current!, lines);
          process.stdout.write(footer(reply));
        } else if (/^\s*edit\s*$/i.test(line) && (shown = await editorLines(engine, current)) !== '') {
          editing = [];
          process.stdout.write(
            `The draft's fields now; write the ones to change as "field: value" lines, then an empty line:\n${shown}edit> `,
          );
          continue;
        } else {
          const reply = await send(streaming(engine), current, line);
          current = reply.chat_id;
          process.stdout.write(footer(reply));
        }
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
        console.log(problemLines(error));
      }
      process.stdout.write('> ');
    }
    process.stdout.write('\n');
  } finally {
    rl.close();
    if (current) console.log(`Chat ${current} is saved: handoff chat --chat ${current}`);
  }
}

/** A refusal as the terminal shows it: every problem of a refused edit on its own line. */
function problemLines(error: InvalidInputError): string {
  const problems = 'problems' in error && Array.isArray(error.problems) ? (error.problems as string[]) : [];
  if (problems.length === 0) return error.message;
  return [
    `Nothing changed; ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:`,
    ...problems.map((p) => `  - ${p}`),
  ].join('\n');
}

/**
 * The offline assistant's reading of what a person asks for: which specialist, and which of
 * the Operator's intents. Regular expressions over the request, deterministic on purpose;
 * what it cannot read is told so, with the command that does it (never a new draft).
 */
import type { Json } from './chat-history.ts';

/** A workflow id as people type it: `inbox-triage-3`. */
const WORKFLOW_ID = /\b[a-z0-9]+(?:-[a-z0-9]+)+\b/;

const OPERATOR_WORDS =
  /\b(run it|run (the |my )?[\w-]+( workflow)? now|start (a |the )?run|run now|pending|waiting|decisions?|questions?|what'?s (waiting|pending)|answer|revoke|add a rule|rules?)\b|^\s*run\b/i;

/** Words that make a request a description of a new workflow. */
export const BUILDER_WORDS =
  /\b(workflow|every|each|daily|weekday|hourly|morning|inbox|mail|email|archive|triage|newsletters?|receipts?|pull requests?|tickets?|competitors?|watch|build|create|make|set up|draft|delete|folder|maildir|imap|webhook)\b/i;

/** A request that starts by changing something rather than describing anew. */
export const REFINEMENT_START =
  /^\s*(also|and|only|just|make|change|switch|use|move|but|instead|never|don'?t|do not|no longer|not|call it|name it|be (more )?(careful|bold)|ask (me )?(less|more))\b/i;

export type OperatorIntent =
  | { kind: 'answer'; input: Json }
  | { kind: 'add_rule'; input: Json }
  | { kind: 'rules' }
  | { kind: 'why'; query: string }
  | { kind: 'activity'; day: string }
  | { kind: 'delete' }
  | { kind: 'rename'; to: string }
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'show' }
  | { kind: 'list' }
  | { kind: 'run' }
  | { kind: 'pending' };

/** What the Operator is asked to do, or null when it is not an Operator's request. */
export function operatorIntent(request: string): OperatorIntent | null {
  const lower = request.toLowerCase().trim();
  const answer = answerAsked(request);
  if (answer) return { kind: 'answer', input: answer };
  const rule = ruleAsked(request);
  if (rule) return { kind: 'add_rule', input: rule };
  if (/\bwhy (did|do|would|was|were) (you|it|this|that)\b/.test(lower))
    return { kind: 'why', query: request };
  if (
    /\b(rules?|what (have )?you (have )?learn(ed|t))\b/.test(lower) &&
    /\b(what|which|show|list|see|tell)\b/.test(lower)
  )
    return { kind: 'rules' };
  if (/\bwhat (did|have) you (do|done)\b|\bwhat happened\b|\bactivity\b|\bwhat was done\b/.test(lower))
    return { kind: 'activity', day: dayIn(lower) };
  if (/\b(delete|remove)\s+(the\s+|my\s+)?(workflow\b|[a-z0-9]+(?:-[a-z0-9]+)+)/.test(lower))
    return { kind: 'delete' };
  const rename = /\brename\b.*?\b(?:to|as)\s+["“']?(.+?)["”']?[.!]*$/.exec(request.trim());
  if (rename) return { kind: 'rename', to: rename[1]!.trim() };
  if (/\b(pause|disable|suspend)\b/.test(lower)) return { kind: 'pause' };
  if (/\b(resume|unpause|re-?enable)\b/.test(lower)) return { kind: 'resume' };
  if (/\b(list|which|what)\b.*\bworkflows\b|^\s*(my |show (me )?(my |all )?)?workflows\b/.test(lower))
    return { kind: 'list' };
  if (/\b(show|describe|open)\b/.test(lower) && WORKFLOW_ID.test(lower.replace(/\be-?mail\b/g, '')))
    return { kind: 'show' };
  if (/\b(run it|run (the |my )?[\w-]+( workflow)? now|start (a |the )?run|run now)\b|^\s*run\b/.test(lower))
    return { kind: 'run' };
  if (OPERATOR_WORDS.test(request)) return { kind: 'pending' };
  return null;
}

function dayIn(lower: string): string {
  const date = /\b(\d{4}-\d{2}-\d{2})\b/.exec(lower)?.[1];
  if (date) return date;
  return /\byesterday\b/.test(lower) ? 'yesterday' : 'today';
}

/** The workflow a request names (the longest id or name it holds), if any. */
export function namedWorkflow<T extends { id: string; name: string }>(
  request: string,
  workflows: T[],
): T | undefined {
  const lower = request.toLowerCase();
  return [...workflows]
    .sort((a, b) => b.id.length - a.id.length)
    .find(
      (w) =>
        new RegExp(`(^|[^a-z0-9-])${w.id}($|[^a-z0-9-])`).test(lower) || lower.includes(w.name.toLowerCase()),
    );
}

/** A greeting or a question about what it can do. */
export function smallTalk(request: string): boolean {
  return /^\s*(hi|hello|hey|good (morning|afternoon|evening)|thanks|thank you|help|what can you do|who are you)\b/i.test(
    request,
  );
}

/** What the offline assistant says to a request it cannot read: the command that does it. */
export function cannotOffline(request: string): string {
  const lower = request.toLowerCase();
  const command = /\b(credential|password|token|api key|secret)\b/.test(lower)
    ? 'handoff credentials set NAME'
    : /\bschedules?\b/.test(lower)
      ? 'handoff schedules'
      : /\b(integrations?|slack|notion|jira|linear|github|mcp)\b/.test(lower)
        ? 'handoff integrations'
        : /\b(export|backup|yaml)\b/.test(lower)
          ? 'handoff workspace export > workspace.yml'
          : /\b(stats|statistics|how many|how much)\b/.test(lower)
            ? 'handoff stats'
            : /\b(cost|usage|tokens|spend)\b/.test(lower)
              ? 'handoff usage'
              : /\b(time ?zone|profile|quiet hours)\b/.test(lower)
                ? 'handoff profile'
                : /\b(runs?|trace|inspect)\b/.test(lower)
                  ? 'handoff runs'
                  : /\baudit|log\b/.test(lower)
                    ? 'handoff audit'
                    : 'handoff --help';
  return `I can't do that offline; here is the command: \`${command}\`. (Offline I can draft a workflow from a description and change it, and list, show, run, pause, resume, rename or delete workflows, explain decisions and rules, and say what was done.)`;
}

/** "answer dec_… with archive" / "skip dec_…": an answer to a waiting decision, by its id. */
export function answerAsked(request: string): Json | null {
  const lower = request.toLowerCase();
  const id = /\b(dec_[a-z0-9_]+)\b/.exec(lower)?.[1];
  const word = /\b(approve|archive|ticket|draft|reply|delete|skip|leave)/.exec(
    lower.replace(id ?? '', ''),
  )?.[1];
  const action = {
    approve: 'approve_suggested',
    archive: 'archive',
    ticket: 'file_ticket',
    draft: 'draft_reply',
    reply: 'draft_reply',
    delete: 'delete',
    skip: 'skip',
    leave: 'skip',
  }[word ?? ''];
  return id && action ? { decision_id: id, action } : null;
}

/** "always archive mail from news@x.example" / "from the domain x.example": a rule you set. */
export function ruleAsked(request: string): Json | null {
  const lower = request.toLowerCase();
  if (!/\b(rule|always)\b/.test(lower)) return null;
  const action = /\b(archiv|ticket|draft|reply|skip|leave)/.exec(lower)?.[1];
  const name = {
    archiv: 'archive',
    ticket: 'file_ticket',
    draft: 'draft_reply',
    reply: 'draft_reply',
    skip: 'skip',
    leave: 'skip',
  }[action ?? ''];
  const sender = /\b([a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,})\b/.exec(lower)?.[1];
  const domain = /\bfrom (?:the domain |anyone at |anything from )?@?([a-z0-9-]+(?:\.[a-z0-9-]+)+)\b/.exec(
    lower,
  )?.[1];
  if (!name || (!sender && !domain)) return null;
  return { match: sender ? { sender } : { domain }, action: name, note: request.trim() };
}

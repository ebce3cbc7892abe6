/**
 * Repairs the tool-call JSON slips open-weight models make — a stray quote after a
 * number, a trailing comma, single quotes, an unclosed brace — and reads the raw
 * generations an endpoint hands back when it rejects such a turn (Groq's
 * `tool_use_failed` / `failed_generation`). Pure functions; nothing here re-samples.
 */
import { jsonrepair } from 'jsonrepair';

/** Tool-call arguments that parse, and what had to be fixed to get there. */
export interface RepairedArguments {
  value: Record<string, unknown>;
  /** Empty when the text was valid JSON already. */
  fixes: string[];
}

/** One tool call read out of a raw generation. */
export interface RecoveredCall {
  name: string;
  input: Record<string, unknown>;
}

export interface RecoveredTurn {
  calls: RecoveredCall[];
  fixes: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const NUMBER_AT_END = /(?:^|[\s:,[])(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;
const CLOSES_VALUE = /^\s*(?:[,}\]]|$)/;

/**
 * Drops a quote that follows a bare number outside any string (`"confidence": 0.9"}`).
 * Left to a generic repair, that quote would turn the number into the string "0.9",
 * which the gate reads as no score at all.
 */
export function dropStrayQuotesAfterNumbers(text: string): { text: string; dropped: number } {
  let out = '';
  let inString = false;
  let dropped = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') {
        out += text[i + 1] ?? '';
        i++;
      } else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && NUMBER_AT_END.test(out) && CLOSES_VALUE.test(text.slice(i + 1))) {
      dropped++;
      continue;
    }
    if (ch === '"') inString = true;
    out += ch;
  }
  return { text: out, dropped };
}

/** Names the slips jsonrepair fixed, for the record. */
function describeSlips(text: string): string[] {
  const fixes: string[] = [];
  if (/^\s*```/.test(text)) fixes.push('code fence');
  if (/,\s*[}\]]/.test(text)) fixes.push('trailing comma');
  if (/(?:^|[{,[:]\s*)'|'\s*(?::|[,}\]])/.test(text)) fixes.push('single quotes');
  const opens = (text.match(/[{[]/g) ?? []).length;
  const closes = (text.match(/[}\]]/g) ?? []).length;
  if (opens > closes) fixes.push('unclosed brace');
  return fixes.length > 0 ? fixes : ['malformed JSON'];
}

/**
 * Tool-call arguments as an object: as sent when they parse, else repaired, else null.
 * An empty text is `{}` (a call without arguments).
 */
export function repairArguments(text: string): RepairedArguments | null {
  const trimmed = text.trim();
  if (trimmed === '') return { value: {}, fixes: [] };
  const direct = tryParse(trimmed);
  if (direct.ok) {
    if (isObject(direct.value)) return { value: direct.value, fixes: [] };
    if (typeof direct.value === 'string') {
      const inner = repairArguments(direct.value);
      if (inner && direct.value.trim().startsWith('{'))
        return { value: inner.value, fixes: ['double-encoded JSON', ...inner.fixes] };
    }
    return null;
  }
  const fixes: string[] = [];
  const { text: unquoted, dropped } = dropStrayQuotesAfterNumbers(trimmed);
  if (dropped > 0) {
    fixes.push('stray quote after a number');
    const parsed = tryParse(unquoted);
    if (parsed.ok) return isObject(parsed.value) ? { value: parsed.value, fixes } : null;
  }
  let repaired: string;
  try {
    repaired = jsonrepair(unquoted);
  } catch {
    return null;
  }
  const parsed = tryParse(repaired);
  if (!parsed.ok || !isObject(parsed.value)) return null;
  return { value: parsed.value, fixes: [...fixes, ...describeSlips(unquoted)] };
}

// ---------------------------------------------------------------------------
// Raw generations (Groq's failed_generation)
// ---------------------------------------------------------------------------

const NAME = /^[A-Za-z_][\w.-]*/;

/** `functions.submit_action` → `submit_action`; null when the tool is not on offer. */
function knownName(raw: string, tools: readonly string[]): string | null {
  const name = raw.trim().replace(/^functions\./, '');
  if (name === '') return null;
  if (tools.length === 0 || tools.includes(name)) return name;
  return null;
}

/**
 * The `<function=NAME>{…}</function>` family llama models emit, with its variants:
 * `<function=NAME{…}></function>`, `<function=NAME={…}</function>`, a missing close tag,
 * several calls in a row, or the opening tag dropped (`NAME{…}</function>`).
 */
function functionTags(text: string, tools: readonly string[]): RecoveredTurn | null {
  let body = text;
  if (!/<function[=\s]/.test(body)) {
    const bare = /^\s*([A-Za-z_][\w.-]*)\s*=?\s*(?=[{(])/.exec(body);
    if (!bare || !/<\/function>/.test(body)) return null;
    body = `<function=${body.trim()}`;
  }
  const segments = body.split(/<function[=\s]/).slice(1);
  const calls: RecoveredCall[] = [];
  const fixes = new Set<string>(['<function=…> tag']);
  for (const segment of segments) {
    const nameMatch = NAME.exec(segment.replace(/^\s+/, ''));
    if (!nameMatch) return null;
    const name = knownName(nameMatch[0], tools);
    if (!name) return null;
    let args = segment.replace(/^\s+/, '').slice(nameMatch[0].length);
    args = args.split('</function>')[0]!;
    args = args
      .replace(/^[\s=>:(]+/, '')
      .replace(/[\s>)]+$/, '')
      .replace(/\/$/, '')
      .trim();
    const repaired = repairArguments(args);
    if (!repaired) return null;
    for (const fix of repaired.fixes) fixes.add(fix);
    calls.push({ name, input: repaired.value });
  }
  return calls.length > 0 ? { calls, fixes: [...fixes] } : null;
}

/** One call object in any of the JSON shapes open-weight models use. */
function callFrom(value: unknown, tools: readonly string[], fixes: Set<string>): RecoveredCall | null {
  if (!isObject(value)) return null;
  const fn = isObject(value.function) ? value.function : undefined;
  const rawName = fn?.name ?? value.name ?? value.tool_name ?? value.tool;
  if (typeof rawName !== 'string') return null;
  const name = knownName(rawName, tools);
  if (!name) return null;
  const rawArgs = fn?.arguments ?? value.arguments ?? value.parameters ?? value.input ?? value.args ?? {};
  if (typeof rawArgs === 'string') {
    const repaired = repairArguments(rawArgs);
    if (!repaired) return null;
    for (const fix of repaired.fixes) fixes.add(fix);
    return { name, input: repaired.value };
  }
  return isObject(rawArgs) ? { name, input: rawArgs } : null;
}

/**
 * JSON tool calls: an object, an array of them, `{"tool_calls": [...]}`,
 * `{"tool_call": {...}}`, perhaps in a code fence or `<tool_call>` tags.
 */
function jsonCalls(text: string, tools: readonly string[]): RecoveredTurn | null {
  const fixes = new Set<string>();
  let body = text.trim();
  const tagged = /<(tool_call|tool-use|tool_use|tools)>([\s\S]*?)(?:<\/\1>|$)/g;
  const taggedParts = [...body.matchAll(tagged)].map((m) => m[2]!.trim()).filter(Boolean);
  if (taggedParts.length > 1) body = `[${taggedParts.join(',')}]`;
  else if (taggedParts.length === 1) body = taggedParts[0]!;
  else body = body.replace(/<\/?(tool_call|tool-use|tool_use|tools)>/g, '').trim();
  if (body !== text.trim()) fixes.add('tool-call tags');
  const fence = /^```[a-z]*\s*([\s\S]*?)\s*(?:```\s*)?$/i.exec(body);
  if (fence) {
    body = fence[1]!;
    fixes.add('code fence');
  }
  if (!/^[[{]/.test(body)) return null;
  let value: unknown;
  const direct = tryParse(body);
  if (direct.ok) value = direct.value;
  else {
    const { text: unquoted, dropped } = dropStrayQuotesAfterNumbers(body);
    if (dropped > 0) fixes.add('stray quote after a number');
    try {
      const parsed = tryParse(jsonrepair(unquoted));
      if (!parsed.ok) return null;
      value = parsed.value;
      for (const fix of describeSlips(unquoted)) fixes.add(fix);
    } catch {
      return null;
    }
  }
  let list: unknown[];
  if (Array.isArray(value)) list = value;
  else if (isObject(value) && Array.isArray(value.tool_calls)) list = value.tool_calls;
  else if (isObject(value) && isObject(value.tool_call)) list = [value.tool_call];
  else list = [value];
  const calls: RecoveredCall[] = [];
  for (const item of list) {
    const call = callFrom(item, tools, fixes);
    if (!call) return null;
    calls.push(call);
  }
  if (calls.length === 0) return null;
  return { calls, fixes: fixes.size > 0 ? [...fixes] : ['tool calls as text'] };
}

/**
 * The tool calls in a raw generation the endpoint refused, or null when there are none
 * that can be trusted: no call found, a tool that is not on offer, or arguments past
 * repair. `tools` are the names on offer (empty: any name).
 */
export function recoverToolCalls(generation: string, tools: readonly string[]): RecoveredTurn | null {
  const text = generation.trim();
  if (text === '') return null;
  return functionTags(text, tools) ?? jsonCalls(text, tools);
}

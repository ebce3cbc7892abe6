/** `1 question`, `5 questions`: a count and its noun, never `question(s)`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

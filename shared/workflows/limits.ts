/** The size limit of a workflow file, apart from the parser so a route can check it without loading YAML. */

/** Largest workflow file (or API body) accepted anywhere: CLI, local API, Lambda API. */
export const MAX_WORKFLOW_BYTES = 256 * 1024;

/** The one-line refusal for a workflow file over MAX_WORKFLOW_BYTES. */
export function tooLargeMessage(fileName: string): string {
  return `${fileName}: larger than ${MAX_WORKFLOW_BYTES} bytes, the limit for a workflow file`;
}

/** Largest workspace file read (CLI and API). */
export const MAX_WORKSPACE_BYTES = 1024 * 1024;

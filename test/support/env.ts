/** Environment variables a test sets for itself, restored by `unstubAllEnvs()`. */
const saved = new Map<string, string | undefined>();

/** Sets (or, with `undefined`, removes) one variable until `unstubAllEnvs()`. */
export function stubEnv(name: string, value: string | undefined): void {
  if (!saved.has(name)) saved.set(name, process.env[name]);
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** Puts back every variable `stubEnv` changed. */
export function unstubAllEnvs(): void {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  saved.clear();
}

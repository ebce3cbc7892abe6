// The Node.js runtime of one Lambda container, in a child process: loads the handler
// (`<codeDir>/index.mjs`, export `handler`) once, then runs each invocation the parent
// sends over IPC and sends back its result or error, as Lambda's runtime interface would.
const [codeDir, exportName] = process.argv.slice(2);
let handler;
try {
  handler = (await import(`${codeDir}/index.mjs`))[exportName];
} catch (error) {
  process.send({
    init: false,
    error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) },
  });
  process.exit(1);
}
process.send({ init: true });
process.on('message', async ({ id, event, context }) => {
  try {
    const result = await handler(event, {
      ...context,
      getRemainingTimeInMillis: () => context.deadline - Date.now(),
      callbackWaitsForEmptyEventLoop: true,
    });
    process.send({ id, ok: true, result: result ?? null });
  } catch (error) {
    process.send({
      id,
      ok: false,
      error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) },
    });
  }
});

// The Node.js runtime of one Lambda container, in a child process: loads the handler
// (`<codeDir>/index.mjs`, export `handler`) once, then runs each invocation the parent
// sends over IPC and sends back its result or error, as Lambda's runtime interface would.
// An invocation may be `clockOffsetMs` late (a scheduled function fired later than now): the
// container's clock reads that much ahead while it runs.
const [codeDir, exportName] = process.argv.slice(2);

const RealDate = Date;
let offset = 0;
function moveClock(ms) {
  if (ms === offset) return;
  if (offset === 0 && ms !== 0) {
    class LaterDate extends RealDate {
      constructor(...args) {
        if (args.length === 0) super(RealDate.now() + offset);
        else super(...args);
      }
      static now() {
        return RealDate.now() + offset;
      }
      static [Symbol.hasInstance](value) {
        return value instanceof RealDate;
      }
    }
    globalThis.Date = new Proxy(LaterDate, { apply: () => new RealDate(RealDate.now() + offset).toString() });
  }
  offset = ms;
}

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
process.on('message', async ({ id, event, context, clockOffsetMs }) => {
  try {
    moveClock(clockOffsetMs ?? 0);
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

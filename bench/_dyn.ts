import { startDynaliteServer } from './bench-dynamo.ts';
const d = await startDynaliteServer();
console.log(d.endpoint);
process.on('SIGTERM', () => {
  void d.stop().then(() => process.exit(0));
});
setInterval(() => {}, 1 << 30);

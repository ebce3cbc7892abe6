import { expect, it } from '@jest/globals';
import { Hono } from 'hono';
import { lazyRoutes } from '../../shared/web/lazy-routes.ts';

it('loads the handlers with the first request, once, and serves each listed route', async () => {
  const app = new Hono();
  let loads = 0;
  lazyRoutes(app, ['GET /things', 'POST /things/:id'], async () => {
    loads += 1;
    return (sink) => {
      sink.get('/things', (c) => c.text('list'));
      sink.post('/things/:id', (c) => c.text(`saved ${c.req.param('id')}`));
    };
  });
  expect(loads).toBe(0);
  expect(await (await app.request('/things')).text()).toBe('list');
  expect(await (await app.request('/things/a', { method: 'POST' })).text()).toBe('saved a');
  expect(loads).toBe(1);
  expect((await app.request('/things/a')).status).toBe(404); // not listed: not routed
});

it('fails loudly when the listed routes and the registered handlers are out of step', async () => {
  const app = new Hono();
  app.onError((error, c) => c.text(error.message, 500));
  lazyRoutes(app, ['GET /a', 'GET /b'], async () => (sink) => void sink.get('/a', (c) => c.text('a')));
  const res = await app.request('/a');
  expect(res.status).toBe(500);
  expect(await res.text()).toBe('lazy routes out of step: unlisted ; unhandled GET /b');
});

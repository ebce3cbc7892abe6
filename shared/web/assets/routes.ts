/**
 * Serves the pages' CSS, scripts and icon from `/assets/*` (same origin, so the strict CSP
 * allows them). Each asset's module loads with its first request: a Lambda answering only the
 * API never loads them.
 */
import type { Hono } from 'hono';

const CSS = 'text/css; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';

const ASSETS: Record<string, { body: () => Promise<string>; type: string }> = {
  'app.css': { body: async () => (await import('./style.ts')).APP_CSS, type: CSS },
  'app.js': { body: async () => (await import('./app-script.ts')).APP_JS, type: JS },
  'inspector.js': { body: async () => (await import('./scripts.ts')).INSPECTOR_JS, type: JS },
  'settings.js': { body: async () => (await import('./scripts.ts')).SETTINGS_JS, type: JS },
  'activity.js': { body: async () => (await import('./activity-script.ts')).ACTIVITY_JS, type: JS },
  'chat.js': { body: async () => (await import('./scripts.ts')).CHAT_JS, type: JS },
  'icon.svg': { body: async () => (await import('./style.ts')).ICON_SVG, type: 'image/svg+xml' },
  'talk.js': { body: async () => (await import('./talk-script.ts')).TALK_JS, type: JS },
  'talk-worklet.js': { body: async () => (await import('./talk-script.ts')).TALK_WORKLET_JS, type: JS },
};

/** Registers `GET /assets/:name`. */
export function registerAssetRoutes(app: Hono): void {
  app.get('/assets/:name', async (c) => {
    const asset = Object.hasOwn(ASSETS, c.req.param('name')) ? ASSETS[c.req.param('name')] : undefined;
    if (!asset) return c.json({ error: `no asset ${c.req.param('name')}` }, 404);
    return c.body(await asset.body(), 200, {
      'Content-Type': asset.type,
      'Cache-Control': 'public, max-age=300',
    });
  });
}

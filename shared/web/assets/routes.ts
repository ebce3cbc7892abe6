/** Serves the pages' CSS, scripts and icon from `/assets/*` (same origin, so the strict CSP allows them). */
import type { Hono } from 'hono';
import { CHAT_JS, INSPECTOR_JS, SETTINGS_JS } from './scripts.ts';
import { APP_CSS, ICON_SVG } from './style.ts';
import { TALK_JS, TALK_WORKLET_JS } from './talk-script.ts';

const ASSETS: Record<string, { body: string; type: string }> = {
  'app.css': { body: APP_CSS, type: 'text/css; charset=utf-8' },
  'inspector.js': { body: INSPECTOR_JS, type: 'text/javascript; charset=utf-8' },
  'settings.js': { body: SETTINGS_JS, type: 'text/javascript; charset=utf-8' },
  'chat.js': { body: CHAT_JS, type: 'text/javascript; charset=utf-8' },
  'icon.svg': { body: ICON_SVG, type: 'image/svg+xml' },
  'talk.js': { body: TALK_JS, type: 'text/javascript; charset=utf-8' },
  'talk-worklet.js': { body: TALK_WORKLET_JS, type: 'text/javascript; charset=utf-8' },
};

/** Registers `GET /assets/:name`. */
export function registerAssetRoutes(app: Hono): void {
  app.get('/assets/:name', (c) => {
    const asset = Object.hasOwn(ASSETS, c.req.param('name')) ? ASSETS[c.req.param('name')] : undefined;
    if (!asset) return c.json({ error: `no asset ${c.req.param('name')}` }, 404);
    return c.body(asset.body, 200, { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=300' });
  });
}
